import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

async function signIn(browser: PageClient, login: string, password: string): Promise<LightMyRequestResponse> {
  const form = await browser.get('/users/sign_in');
  return browser.post('/users/sign_in', { authenticity_token: PageClient.formToken(form), 'user[login]': login, 'user[password]': password, redirect_to: '/explore/projects' });
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
    const page = await new PageClient(gantry).get('/users/sign_in');
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    const cookie = [page.headers['set-cookie']].flat().join('\n');
    assert.match(cookie, /_gantry_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax/);
    assert.doesNotMatch(cookie, /Secure/, 'plain http gets no Secure cookie');
  });

  it('signs in with username and password, shows who is signed in, and signs out', async () => {
    const browser = new PageClient(gantry);
    const signedIn = await signIn(browser, 'alice', 'secret-password-1');
    assert.equal(signedIn.statusCode, 302);
    assert.equal(signedIn.headers.location, '/explore/projects');
    assert.match([signedIn.headers['set-cookie']].flat().join('\n'), /_gantry_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800/);
    const home = await browser.get('/explore/projects');
    assert.equal(home.statusCode, 200);
    assert.match(home.body, /\(@alice\)/);
    const signedOut = await browser.post('/users/sign_out', { authenticity_token: PageClient.formToken(home) });
    assert.equal(signedOut.statusCode, 302);
    assert.equal(browser.cookies.has('_gantry_session'), false);
    assert.doesNotMatch((await browser.get('/explore/projects')).body, /@alice/);
  });

  it('a session cookie stops working once signed out, even when replayed', async () => {
    const browser = new PageClient(gantry);
    await signIn(browser, 'alice', 'secret-password-1');
    const session = browser.cookies.get('_gantry_session')!;
    const home = await browser.get('/explore/projects');
    await browser.post('/users/sign_out', { authenticity_token: PageClient.formToken(home) });
    const replay = await gantry.coordinator.app.inject({ method: 'GET', url: '/explore/projects', headers: { cookie: `_gantry_session=${session}` } });
    assert.doesNotMatch(replay.body, /@alice/);
  });

  it('refuses sign-out without the session CSRF token', async () => {
    const browser = new PageClient(gantry);
    await signIn(browser, 'alice', 'secret-password-1');
    const forged = await browser.post('/users/sign_out', { authenticity_token: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 422);
    assert.match((await browser.get('/explore/projects')).body, /@alice/, 'still signed in');
  });

  it('refuses a sign-in whose form token does not match the browser cookie (login CSRF)', async () => {
    const browser = new PageClient(gantry);
    await browser.get('/users/sign_in');
    const forged = await browser.post('/users/sign_in', { authenticity_token: 'y'.repeat(43), 'user[login]': 'alice', 'user[password]': 'secret-password-1' });
    assert.equal(forged.statusCode, 422);
    assert.equal(browser.cookies.has('_gantry_session'), false);
  });

  it('says the same for a wrong password and an unknown user', async () => {
    const wrong = await signIn(new PageClient(gantry), 'alice', 'not-it');
    const unknown = await signIn(new PageClient(gantry), 'nobody-here', 'not-it');
    assert.equal(wrong.statusCode, 401);
    assert.equal(unknown.statusCode, 401);
    assert.match(wrong.body, /Invalid login or password/);
    assert.match(unknown.body, /Invalid login or password/);
  });

  it('locks a login out after ten failures, even for the right password, without touching other logins', async () => {
    for (let attempt = 1; attempt <= 10; attempt += 1) assert.equal((await signIn(new PageClient(gantry), 'mallory', `guess-${attempt}`)).statusCode, 401);
    const locked = await signIn(new PageClient(gantry), 'MALLORY', 'secret-password-1');
    assert.equal(locked.statusCode, 429);
    assert.match(locked.body, /Too many failed sign-in attempts/);
    assert.equal((await signIn(new PageClient(gantry), 'alice', 'secret-password-1')).statusCode, 302);
  });

  it('returns only to paths of this site after signing in', async () => {
    const browser = new PageClient(gantry);
    const form = await browser.get('/users/sign_in');
    const outside = await browser.post('/users/sign_in', { authenticity_token: PageClient.formToken(form), 'user[login]': 'alice', 'user[password]': 'secret-password-1', redirect_to: '//evil.example/x' });
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
