import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestCoordinator } from '../helpers/coordinator.ts';

/** A browser's cookie jar over inject() for the web page tests: keeps what Set-Cookie gives, sends it back. */
export class PageClient {
  readonly cookies = new Map<string, string>();

  constructor(private readonly gantry: Pick<TestCoordinator, 'coordinator'>) {}

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(await this.gantry.coordinator.app.inject({ method: 'GET', url, headers: { ...headers, ...this.headers() } }));
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    const headers = { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' };
    return this.keep(await this.gantry.coordinator.app.inject({ method: 'POST', url, headers, payload: new URLSearchParams(form).toString() }));
  }

  /** Signs in through the form (the test users' password). */
  async signIn(login: string): Promise<this> {
    const form = await this.get('/users/sign_in');
    const done = await this.post('/users/sign_in', { authenticity_token: PageClient.formToken(form), 'user[login]': login, 'user[password]': 'secret-password-1', redirect_to: '/' });
    assert.equal(done.statusCode, 302, done.body.slice(0, 300));
    return this;
  }

  /** The hidden authenticity_token of the page's first form. */
  static formToken(page: LightMyRequestResponse): string {
    const match = /name="authenticity_token" value="([^"]+)"/.exec(page.body);
    assert.ok(match, `no authenticity_token in ${page.body.slice(0, 300)}`);
    return match[1]!;
  }

  private headers(): Record<string, string> {
    return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of [response.headers['set-cookie'] ?? []].flat()) {
      const [pair] = cookie.split(';');
      const at = pair!.indexOf('=');
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(pair!.slice(0, at));
      else this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    return response;
  }
}
