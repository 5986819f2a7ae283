import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/** A browser's cookie jar over inject(): keeps what Set-Cookie gives, sends it back. */
class Browser {
  readonly cookies = new Map<string, string>();

  constructor(private readonly gantry: TestCoordinator) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.keep(await this.gantry.coordinator.app.inject({ method: 'GET', url, headers: this.headers() }));
  }

  async post(url: string, form: Record<string, string>): Promise<LightMyRequestResponse> {
    const headers = { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' };
    return this.keep(await this.gantry.coordinator.app.inject({ method: 'POST', url, headers, payload: new URLSearchParams(form).toString() }));
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
      const name = pair!.slice(0, at);
      const value = pair!.slice(at + 1);
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

async function signIn(browser: Browser, login: string, password: string): Promise<LightMyRequestResponse> {
  const form = await browser.get('/users/sign_in');
  return browser.post('/users/sign_in', { authenticity_token: Browser.formToken(form), 'user[login]': login, 'user[password]': password, redirect_to: '/explore/projects' });
}

describe('web sign-in', () => {
  let gantry: TestCoordinator;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.createUser('alice');
    await gantry.createUser('mallory');
  });
  after(() => gantry.close());

  it('serves the sign-in form with a strict CSP and an HttpOnly, SameSite=Lax CSRF cookie', async () => {
    const page = await new Browser(gantry).get('/users/sign_in');
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    const cookie = [page.headers['set-cookie']].flat().join('\n');
    assert.match(cookie, /_gantry_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
    assert.doesNotMatch(cookie, /Secure/, 'plain http gets no Secure cookie');
  });

  it('signs in with username and password, shows who is signed in, and signs out', async () => {
    const browser = new Browser(gantry);
    const signedIn = await signIn(browser, 'alice', 'secret-password-1');
    assert.equal(signedIn.statusCode, 302);
    assert.equal(signedIn.headers.location, '/explore/projects');
    assert.match([signedIn.headers['set-cookie']].flat().join('\n'), /_gantry_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800/);
    const home = await browser.get('/explore/projects');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /\(@alice\)/);
    const signedOut = await browser.post('/users/sign_out', { authenticity_token: Browser.formToken(home) });
    assert.equal(signedOut.statusCode, 302);
    assert.equal(browser.cookies.has('_gantry_session'), false);
    assert.doesNotMatch((await browser.get('/explore/projects')).body, /@alice/);
  });

  it('a session cookie stops working once signed out, even when replayed', async () => {
    const browser = new Browser(gantry);
    await signIn(browser, 'alice', 'secret-password-1');
    const session = browser.cookies.get('_gantry_session')!;
    const home = await browser.get('/explore/projects');
    await browser.post('/users/sign_out', { authenticity_token: Browser.formToken(home) });
    const replay = await gantry.coordinator.app.inject({ method: 'GET', url: '/explore/projects', headers: { cookie: `_gantry_session=${session}` } });
    assert.doesNotMatch(replay.body, /@alice/);
  });

  it('refuses sign-out without the session CSRF token', async () => {
    const browser = new Browser(gantry);
    await signIn(browser, 'alice', 'secret-password-1');
    const forged = await browser.post('/users/sign_out', { authenticity_token: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 422);
    assert.match((await browser.get('/explore/projects')).body, /@alice/, 'still signed in');
  });

  it('refuses a sign-in whose form token does not match the browser cookie (login CSRF)', async () => {
    const browser = new Browser(gantry);
    await browser.get('/users/sign_in');
    const forged = await browser.post('/users/sign_in', { authenticity_token: 'y'.repeat(43), 'user[login]': 'alice', 'user[password]': 'secret-password-1' });
    assert.equal(forged.statusCode, 422);
    assert.equal(browser.cookies.has('_gantry_session'), false);
  });

  it('says the same for a wrong password and an unknown user', async () => {
    const wrong = await signIn(new Browser(gantry), 'alice', 'not-it');
    const unknown = await signIn(new Browser(gantry), 'nobody-here', 'not-it');
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    assert.match(wrong.body, /Invalid login or password/);
    assert.match(unknown.body, /Invalid login or password/);
  });

  it('locks a login out after ten failures, even for the right password, without touching other logins', async () => {
    for (let attempt = 1; attempt <= 10; attempt += 1) assert.equal((await signIn(new Browser(gantry), 'mallory', `guess-${attempt}`)).statusCode, 401);
    const locked = await signIn(new Browser(gantry), 'MALLORY', 'secret-password-1');
    assert.equal(locked.statusCode, 429);
    assert.match(locked.body, /Too many failed sign-in attempts/);
    assert.equal((await signIn(new Browser(gantry), 'alice', 'secret-password-1')).statusCode, 302);
  });

  it('returns only to paths of this site after signing in', async () => {
    const browser = new Browser(gantry);
    const form = await browser.get('/users/sign_in');
    const outside = await browser.post('/users/sign_in', { authenticity_token: Browser.formToken(form), 'user[login]': 'alice', 'user[password]': 'secret-password-1', redirect_to: '//evil.example/x' });
    assert.equal(outside.headers.location, '/');
  });

  it('marks cookies Secure when the external URL is https', async () => {
    const secure = await startTestCoordinator({ externalUrl: 'https://gantry.test' });
    try {
      const page = await secure.coordinator.app.inject({ method: 'GET', url: '/users/sign_in' });
      assert.match([page.headers['set-cookie']].flat().join('\n'), /HttpOnly; SameSite=Lax; Secure/);
    } finally {
      await secure.close();
    }
  });
});
