import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { seedPipeline } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { launchChromium, watchProblems } from './chromium.ts';

/** Debian's chromium (scripts/test-setup.sh installs it); never a browser a tool downloads. */
const AUTHOR = { name: 'Ann Author', email: 'ann@example.com' };
const NAVIGATION = { timeout: 30_000 };

/** The page's own globals used in `evaluate` (the tests are compiled without the DOM's types). */
interface InPage {
  getComputedStyle(element: unknown): { backgroundColor: string };
}


describe('merge request and issue pages in headless Chromium, as an anonymous visitor of a public project', () => {
  let gantry: TestCoordinator;
  let browser: Browser;
  let base: string;
  let mergeIid: number;
  let issueIid: number;
  let pipelineId: number;
  let headSha: string;

  before(async () => {
    gantry = await startTestCoordinator();
    const created = await gantry.api('POST', '/projects', { body: { name: 'Shop', path: 'shop', visibility: 'public', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    const projectId = created.json.id as number;
    const repository = gantry.coordinator.context.repositories.open(projectId);
    const head = await repository.commitFiles({
      branch: 'topic', startRef: 'main', message: 'Change things', author: AUTHOR,
      actions: [
        { action: 'create', file_path: 'src/app.ts', content: Buffer.from('export const answer = 42;\n') },
        { action: 'update', file_path: 'README.md', content: Buffer.from('# the shop\n') },
      ],
    });
    const request = await gantry.api('POST', `/projects/${projectId}/merge_requests`, {
      body: { source_branch: 'topic', target_branch: 'main', title: 'Add the <script>alert(1)</script> app', description: 'Does **this**.\n\n<img src=x onerror=alert(1)>' },
    });
    assert.equal(request.status, 201, request.text);
    mergeIid = request.json.iid as number;
    assert.equal((await gantry.api('POST', `/projects/${projectId}/merge_requests/${mergeIid}/notes`, { body: { body: 'Looks _good_ <script>alert(2)</script>' } })).status, 201);
    assert.equal((await gantry.api('POST', `/projects/${projectId}/merge_requests/${mergeIid}/notes`, { body: { body: 'Internal remark', internal: true } })).status, 201);
    headSha = head.id;
    const seeded = await seedPipeline(gantry.coordinator, { projectId, ref: 'topic', sha: head.id, jobs: [{ name: 'unit', stage: 'test' }] });
    pipelineId = seeded.pipeline.id;
    const issue = await gantry.api('POST', `/projects/${projectId}/issues`, { body: { title: 'Broken <b>cart</b>', description: '- one\n- *two*\n\n<img src=y onerror=alert(3)>' } });
    assert.equal(issue.status, 201, issue.text);
    issueIid = issue.json.iid as number;
    assert.equal((await gantry.api('POST', `/projects/${projectId}/issues/${issueIid}/notes`, { body: { body: 'Seen it **too**' } })).status, 201);
    assert.equal((await gantry.api('POST', `/projects/${projectId}/issues`, { body: { title: 'Hidden flaw', confidential: true } })).status, 201);
    base = await gantry.coordinator.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gantry.close();
  });

  it('goes from the list to a merge request, its changes and its pipelines', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${base}/root/shop/-/merge_requests`);
    const link = page.getByRole('link', { name: `!${mergeIid} Add the <script>alert(1)</script> app` });
    await link.click();
    await page.waitForURL(`${base}/root/shop/-/merge_requests/${mergeIid}`, NAVIGATION);
    assert.equal(await page.locator('h1').textContent(), `Add the <script>alert(1)</script> app !${mergeIid}`);
    const description = page.locator('div.markdown').first();
    assert.equal(await description.locator('strong').textContent(), 'this', 'Markdown rendered');
    assert.match((await description.textContent()) ?? '', /<img src=x onerror=alert\(1\)>/, 'raw HTML shown as text');
    const notes = page.locator('article.note');
    assert.equal(await notes.count(), 1, 'the note, and not the internal one');
    assert.equal(await notes.locator('em').textContent(), 'good');
    assert.match((await notes.textContent()) ?? '', /<script>alert\(2\)<\/script>/);

    await page.locator('nav.tabs').getByRole('link', { name: 'Changes (2)' }).click();
    await page.waitForURL(`${base}/root/shop/-/merge_requests/${mergeIid}/diffs`, NAVIGATION);
    assert.deepEqual(await page.locator('section.file-diff h3 .sha').allTextContents(), ['README.md', 'src/app.ts']);
    const added = page.locator('pre.diff .line.added');
    assert.deepEqual(await added.allTextContents(), ['added +# the shop', 'added +export const answer = 42;'], 'added lines, also marked in words');
    assert.deepEqual(await page.locator('pre.diff .line.removed').allTextContents(), ['removed -# Shop']);
    const colours = await added.first().evaluate((line) => (globalThis as unknown as InPage).getComputedStyle(line).backgroundColor);
    assert.notEqual(colours, 'rgba(0, 0, 0, 0)', 'the stylesheet colours added lines');

    await page.locator('nav.tabs').getByRole('link', { name: 'Pipelines' }).click();
    await page.waitForURL(`${base}/root/shop/-/merge_requests/${mergeIid}/pipelines`, NAVIGATION);
    const row = page.locator('tbody tr');
    assert.equal(await row.count(), 1);
    // No runner: the pipeline waits, created or already pending, whichever the coordinator reached.
    assert.match((await row.locator('td').first().textContent()) ?? '', / (created|pending)$/, 'its status in words');
    assert.equal(await row.locator('a.sha').textContent(), headSha.slice(0, 8));
    assert.equal(await row.getByRole('link', { name: `#${pipelineId}` }).getAttribute('href'), `/root/shop/-/pipelines/${pipelineId}`);
    assert.deepEqual(problems, [], 'no script ran and nothing broke the CSP');
  });

  it('goes from the issue list to an issue with its notes, and never shows a confidential one', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${base}/root/shop/-/issues`);
    assert.equal(await page.getByText('Hidden flaw').count(), 0);
    await page.getByRole('link', { name: `#${issueIid} Broken <b>cart</b>` }).click();
    await page.waitForURL(`${base}/root/shop/-/issues/${issueIid}`, NAVIGATION);
    const description = page.locator('div.markdown').first();
    assert.deepEqual(await description.locator('li').allTextContents(), ['one', 'two']);
    assert.equal(await description.locator('em').textContent(), 'two');
    assert.match((await description.textContent()) ?? '', /<img src=y onerror=alert\(3\)>/);
    assert.equal(await page.locator('article.note strong').last().textContent(), 'too');
    assert.deepEqual(problems, [], 'no script ran and nothing broke the CSP');
  });
});
