import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addMember } from '../coordinator/groups-fixtures.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';
import { launchChromium } from './chromium.ts';

/** Debian's chromium (scripts/test-setup.sh installs it); never a browser a tool downloads. */
const ESC = '\x1b';
const FILLER = 300;

const LOG = [
  `${ESC}[0Ksection_start:1700000000:prepare[collapsed=true]\r${ESC}[0K${ESC}[36;1mPreparing the executor${ESC}[0;m`,
  'inside the section',
  `${ESC}[0Ksection_end:1700000075:prepare\r${ESC}[0K`,
  `${ESC}[31mred text${ESC}[0m <img src=x onerror=alert(1)>`,
  '10%\r50%\r100% downloaded',
  '2026-09-26T22:30:07.958626Z 00O stamped line',
  ...Array.from({ length: FILLER }, (_, index) => `filler line ${index + 1}${index === 200 ? ' needle' : ''}`),
  '',
].join('\n');

describe('the job page in headless Chromium', () => {
  let fixture: RunnerJobsFixture;
  let browser: Browser;
  let jobUrl: string;
  let jobId: number;
  let token: string;
  let project: Awaited<ReturnType<RunnerJobsFixture['project']>>;
  let written = 0;

  async function append(text: string): Promise<void> {
    const bytes = Buffer.from(text);
    const response = await fetch(`${fixture.apiUrl}/jobs/${jobId}/trace`, {
      method: 'PATCH',
      headers: { 'content-type': 'text/plain', 'job-token': token, 'content-range': `${written}-${written + bytes.length - 1}` },
      body: bytes,
    });
    assert.equal(response.status, 202);
    written += bytes.length;
  }

  async function openJob(hash = ''): Promise<Page> {
    const page = await browser.newPage();
    page.on('dialog', () => assert.fail('a script from the log ran'));
    await page.goto(`${fixture.baseUrl}/users/sign_in`);
    await page.getByLabel('Username or email').fill('log-reader');
    await page.getByLabel('Password').fill('secret-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/dashboard\/projects/, { timeout: 30_000 });
    await page.goto(`${jobUrl}${hash}`);
    await page.locator(`#L${FILLER + 5}`).waitFor({ state: 'attached', timeout: 30_000 });
    return page;
  }

  before(async () => {
    fixture = await startRunnerJobsFixture();
    const reader = await fixture.gantry.createUser('log-reader');
    project = await fixture.project('live-log');
    await addMember(fixture.gantry, { type: 'project', id: project.id }, reader.id, 30);
    await fixture.pipeline(project, [{ name: 'build', stage: 'build' }]);
    const claimed = await fixture.claim();
    jobId = claimed.job.id;
    token = claimed.token;
    jobUrl = `${fixture.baseUrl}/root/live-log/-/jobs/${jobId}`;
    await append(LOG);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await fixture?.close();
  });

  it('draws colours, \\r lines, sections with their durations, and timestamps with a toggle', async () => {
    const page = await openJob();
    const red = page.locator('.log .ansi-red-fg');
    assert.equal(await red.textContent(), 'red text');
    assert.equal(await red.evaluate((element) => (globalThis as unknown as InPage).getComputedStyle(element).color), 'rgb(192, 57, 43)');
    assert.equal(await page.locator('#L3 .log-text').textContent(), 'red text <img src=x onerror=alert(1)>');
    assert.equal(await page.locator('#L4 .log-text').textContent(), '100% downloaded');

    const section = page.locator('.log-section[data-section="prepare"]');
    assert.equal(await section.locator('.log-duration').textContent(), '01:15');
    assert.equal(await page.locator('#L1 .log-text').textContent(), 'Preparing the executor');
    assert.equal(await page.locator('#L2').isVisible(), false, 'collapsed=true starts collapsed');
    await section.locator('.log-toggle').click();
    assert.equal(await page.locator('#L2').isVisible(), true);
    assert.equal(await section.locator('.log-toggle').getAttribute('aria-expanded'), 'true');
    await section.locator('.log-toggle').click();
    assert.equal(await page.locator('#L2').isVisible(), false);

    assert.equal(await page.locator('#L5 .log-text').textContent(), 'stamped line');
    assert.equal(await page.locator('#L5 .log-time').textContent(), '22:30:07');
    assert.equal(await page.locator('#L5 .log-time').isVisible(), true);
    await page.getByLabel('Timestamps').uncheck();
    assert.equal(await page.locator('#L5 .log-time').isVisible(), false);
    await page.close();
  });

  it('searches the log and opens a line anchor', async () => {
    const page = await openJob(`#L${FILLER}`);
    const anchored = page.locator(`#L${FILLER}`);
    await page.waitForFunction((id) => (globalThis as unknown as InPage).document.getElementById(id)?.classList.contains('log-target'), `L${FILLER}`, { timeout: 30_000 });
    assert.equal(await inView(page, `L${FILLER}`), true, 'the anchored line is scrolled into view');
    assert.equal(await anchored.locator('.log-text').textContent(), `filler line ${FILLER - 5}`);

    await page.getByLabel('Search the log').fill('NEEDLE');
    await page.getByLabel('Search the log').press('Enter');
    await page.locator('.log-match').waitFor({ timeout: 30_000 });
    assert.equal(await page.locator('.log-match .log-text').textContent(), 'filler line 201 needle');
    assert.equal(await page.locator('#log-search-result').textContent(), 'Line 206: 1 lines match');
    assert.equal(await inView(page, 'L206'), true);
    await page.getByLabel('Search the log').fill('inside the section');
    await page.getByLabel('Search the log').press('Enter');
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.getElementById('L2')?.classList.contains('log-match'), undefined, { timeout: 30_000 });
    assert.equal(await page.locator('#L2').isVisible(), true, 'a match inside a collapsed section opens it');
    await page.close();
  });

  it('shows a line a running job prints, follows the tail, stops when the reader scrolls up and resumes at the bottom', async () => {
    const page = await openJob();
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.body.dataset.following !== 'false', undefined, { timeout: 30_000 });
    assert.equal(await atBottom(page), true, 'a running job opens at its tail');

    await append('a new line from the runner\n');
    await page.getByText('a new line from the runner').waitFor({ timeout: 30_000 });
    await page.waitForFunction(atBottomInPage, undefined, { timeout: 30_000 });

    await page.locator('#log-box').evaluate((box) => (box as unknown as InPageElement).scrollTo({ top: 0 }));
    await page.waitForFunction(() => (globalThis as unknown as InPage).document.body.dataset.following === 'false', undefined, { timeout: 30_000 });
    await append('printed while the reader reads above\n');
    await page.getByText('printed while the reader reads above').waitFor({ state: 'attached', timeout: 30_000 });
    assert.equal(await page.locator('#log-box').evaluate((box) => (box as unknown as InPageElement).scrollTop), 0, 'not pulled back down');

    await page.getByRole('button', { name: 'Scroll to bottom' }).click();
    await append('after resuming\n');
    await page.getByText('after resuming').waitFor({ timeout: 30_000 });
    await page.waitForFunction(atBottomInPage, undefined, { timeout: 30_000 });
    await page.close();
  });

  it('polls a running log with nothing new, and a job that printed nothing yet, without a failed request', async () => {
    const idle = await fixture.pipeline(project, [{ name: 'idle', stage: 'build' }]);
    const idleUrl = `${fixture.baseUrl}/root/live-log/-/jobs/${idle.jobs.idle!.id}`;
    const page = await openJob();
    const failures: string[] = [];
    page.on('response', (response) => {
      if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') failures.push(message.text());
    });
    let reads = 0;
    page.on('response', (response) => {
      if (response.url().endsWith('/raw')) reads += 1;
    });
    // The page asks again every 750 ms while the job is active: three reads each.
    const threeReads = async () => {
      reads = 0;
      for (let waited = 0; reads < 3 && waited < 300; waited += 1) await page.waitForTimeout(100);
      assert.ok(reads >= 3, `the page read the log ${reads} times`);
    };
    await threeReads();
    await page.goto(idleUrl);
    await threeReads();
    assert.match((await page.locator('#job-status').textContent()) ?? '', /^(pending|created)$/);
    assert.deepEqual(failures, []);
    await page.close();
  });
});

/** The page's globals the tests use, typed here: tests are compiled without the DOM's types. */
interface InPageElement {
  scrollTop: number;
  clientHeight: number;
  scrollHeight: number;
  classList: { contains(name: string): boolean };
  getBoundingClientRect(): { top: number; bottom: number };
  scrollTo(options: { top: number }): void;
}
interface InPage {
  document: { getElementById(id: string): InPageElement | null; body: { dataset: Record<string, string | undefined> } };
  getComputedStyle(element: unknown): { color: string };
}

/** Runs in the page (Playwright sends its source): everything it uses is inside it. */
function atBottomInPage(): boolean {
  const box = (globalThis as unknown as InPage).document.getElementById('log-box')!;
  return box.scrollTop + box.clientHeight >= box.scrollHeight - 8;
}

function inView(page: Page, id: string): Promise<boolean> {
  return page.evaluate((lineId) => {
    const { document } = globalThis as unknown as InPage;
    const box = document.getElementById('log-box')!.getBoundingClientRect();
    const line = document.getElementById(lineId)!.getBoundingClientRect();
    return line.top >= box.top && line.bottom <= box.bottom;
  }, id);
}

function atBottom(page: Page): Promise<boolean> {
  return page.evaluate(atBottomInPage);
}
