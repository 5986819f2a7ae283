import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { launchChromium } from './chromium.ts';

interface FetchOutcome {
  status?: number;
  total?: string | null;
  body?: unknown;
  error?: string;
}

/** A script on another origin (another port) calls the API with a token, as a browser extension or a dashboard would. */
describe('the API from a script on another origin, in headless Chromium', () => {
  let gantry: TestCoordinator;
  let browser: Browser;
  let api: string;
  let elsewhere: Server;
  let pageUrl: string;

  before(async () => {
    gantry = await startTestCoordinator();
    api = await gantry.coordinator.app.listen({ host: '127.0.0.1', port: 0 });
    elsewhere = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>tool</title>'));
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    pageUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    elsewhere?.close();
    await gantry.close();
  });

  const fromPage = async (script: (args: { api: string; token: string }) => Promise<FetchOutcome>): Promise<FetchOutcome> => {
    const page = await browser.newPage();
    try {
      await page.goto(pageUrl);
      return await page.evaluate(script, { api, token: gantry.rootToken });
    } finally {
      await page.close();
    }
  };

  it('creates a project with a JSON POST (a preflighted request) and reads the answer', async () => {
    const outcome = await fromPage(async ({ api: base, token }) => {
      const response = await fetch(`${base}/api/v4/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'From a browser' }),
      });
      return { status: response.status, body: await response.json() };
    });
    assert.equal(outcome.status, 201, JSON.stringify(outcome));
    assert.equal((outcome.body as { name: string }).name, 'From a browser');
  });

  it('reads a list and its pagination headers', async () => {
    const outcome = await fromPage(async ({ api: base, token }) => {
      const response = await fetch(`${base}/api/v4/projects?per_page=1`, { headers: { Authorization: `Bearer ${token}` } });
      return { status: response.status, total: response.headers.get('X-Total'), body: await response.json() };
    });
    assert.equal(outcome.status, 200, JSON.stringify(outcome));
    assert.equal(outcome.total, '1');
    assert.equal((outcome.body as unknown[]).length, 1);
  });

  it('sees a refusal\'s status and body', async () => {
    const outcome = await fromPage(async ({ api: base }) => {
      const response = await fetch(`${base}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': 'wrong' } });
      return { status: response.status, body: await response.json() };
    });
    assert.deepEqual(outcome, { status: 401, body: { message: '401 Unauthorized' } });
  });

  it('cannot read git over HTTP across origins', async () => {
    const outcome = await fromPage(async ({ api: base }) => {
      try {
        const response = await fetch(`${base}/root/from-a-browser.git/info/refs?service=git-upload-pack`);
        return { status: response.status };
      } catch (error) {
        return { error: String(error) };
      }
    });
    assert.match(outcome.error ?? '', /TypeError/, JSON.stringify(outcome));
  });
});
