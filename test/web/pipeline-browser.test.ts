import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { seedPipeline, type SeededPipeline } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { launchChromium, watchProblems } from './chromium.ts';

/** Debian's chromium (scripts/test-setup.sh installs it); never a browser a tool downloads. */

describe('project → pipelines → pipeline in headless Chromium', () => {
  let gantry: TestCoordinator;
  let browser: Browser;
  let base: string;
  let seeded: SeededPipeline;

  before(async () => {
    gantry = await startTestCoordinator();
    // A Maintainer: main is protected, and only those who may push there may cancel its pipelines.
    const dev = await gantry.createUser('dev');
    const created = await gantry.api('POST', '/projects', { body: { name: 'Site', path: 'site', visibility: 'public' } });
    assert.equal(created.status, 201, created.text);
    const projectId = created.json.id as number;
    assert.equal((await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: dev.id, access_level: 40 } })).status, 201);
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch: 'main', commit_message: 'Add the README', actions: [{ action: 'create', file_path: 'README.md', content: '# Site\n\n<img src=x onerror=alert(1)>\n' }] },
    });
    assert.equal(commit.status, 201, commit.text);
    seeded = await seedPipeline(gantry.coordinator, {
      projectId, ref: 'main', sha: commit.json.id as string,
      jobs: [{ name: 'compile', stage: 'build' }, { name: 'unit', stage: 'test', needs: [{ name: 'compile' }] }],
    });
    base = await gantry.coordinator.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gantry.close();
  });

  it('clicks from the project page to the pipeline, sees the graph and cancels the pipeline', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${base}/users/sign_in?redirect_to=${encodeURIComponent('/root/site')}`);
    await page.getByLabel('Username or email').fill('dev');
    await page.getByLabel('Password').fill('secret-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/root/site`, { timeout: 30_000 });
    assert.equal(await page.locator('article.readme h1').textContent(), 'Site');
    assert.match((await page.locator('article.readme').textContent()) ?? '', /<img src=x onerror=alert\(1\)>/, 'raw HTML shows as text');

    await page.getByRole('link', { name: 'Pipelines' }).click();
    await page.waitForURL(`${base}/root/site/-/pipelines`, { timeout: 30_000 });
    await page.getByRole('link', { name: `#${seeded.pipeline.id}` }).click();
    await page.waitForURL(`${base}/root/site/-/pipelines/${seeded.pipeline.id}`, { timeout: 30_000 });

    const graph = page.locator('svg.pipeline-graph');
    assert.equal(await graph.locator('path.need').count(), 1);
    const box = await graph.locator(`a[href="/root/site/-/jobs/${seeded.jobs.unit!.id}"] rect`).boundingBox();
    assert.ok(box && box.width > 100 && box.height > 20, 'the job box is drawn (the stylesheet applied under the CSP)');
    const compile = await graph.locator(`a[href="/root/site/-/jobs/${seeded.jobs.compile!.id}"] rect`).boundingBox();
    assert.ok(compile && box && compile.x < box.x, 'stages are columns, left to right');

    await page.getByRole('button', { name: 'Cancel pipeline' }).click();
    await page.waitForURL(`${base}/root/site/-/pipelines/${seeded.pipeline.id}`, { timeout: 30_000 });
    assert.match((await page.locator('h1').textContent()) ?? '', /canceled/);
    assert.deepEqual(problems, [], 'no script ran and nothing broke the CSP');
  });
});
