import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { launchChromium } from './chromium.ts';

/** Debian's chromium (scripts/test-setup.sh installs it); never a browser a tool downloads. */

describe('web pages in headless Chromium', () => {
  let gantry: TestCoordinator;
  let browser: Browser;
  let base: string;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.createUser('alice');
    const created = await gantry.api('POST', '/projects', { body: { name: 'Shown', path: 'shown', description: '<img src=x onerror=alert(1)>', visibility: 'public' } });
    assert.equal(created.status, 201, created.text);
    base = await gantry.coordinator.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gantry.close();
  });

  it('signs in with the form, shows the user, and signs out with the button', async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${base}/explore/projects`);
    assert.equal(await page.locator('td a').first().textContent(), 'Administrator / Shown');
    assert.equal(await page.locator('td .muted').first().textContent(), '<img src=x onerror=alert(1)>', 'the description shows as text');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username or email').fill('alice');
    await page.getByLabel('Password').fill('secret-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/projects`, { timeout: 30_000 });
    assert.match((await page.locator('header.top').textContent()) ?? '', /@alice/);
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === '_gantry_session');
    assert.ok(session, 'a session cookie');
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Lax');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/users\/sign_in$/, { timeout: 30_000 });
    assert.equal((await page.context().cookies()).some((cookie) => cookie.name === '_gantry_session'), false);
    assert.deepEqual(dialogs, [], 'no script ran');
  });

  it('shows a wrong password as an alert on the form', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/users/sign_in`);
    await page.getByLabel('Username or email').fill('alice');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor({ timeout: 30_000 });
    assert.equal(await page.getByRole('alert').textContent(), 'Invalid login or password.');
  });

  it('draws a badge the browser can show as an image', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${base}/root/shown/badges/main/pipeline.svg`);
    assert.equal(response?.status(), 200);
    assert.equal(await page.locator('svg text').nth(3).textContent(), 'unknown');
  });
});
