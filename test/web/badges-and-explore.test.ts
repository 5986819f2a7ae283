import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedPipeline } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

describe('web badges and explore', () => {
  let gantry: TestCoordinator;
  let publicId: number;

  const get = (url: string) => gantry.coordinator.app.inject({ method: 'GET', url });

  before(async () => {
    gantry = await startTestCoordinator();
    const created = await gantry.api('POST', '/projects', { body: { name: 'Shown', path: 'shown', description: '<script>alert(1)</script> & <b>bold</b>', visibility: 'public' } });
    assert.equal(created.status, 201, created.text);
    publicId = created.json.id as number;
    await gantry.api('POST', '/projects', { body: { name: 'hidden', path: 'hidden', visibility: 'private' } });
  });
  after(() => gantry.close());

  it('answers `unknown` in grey for a ref without pipelines, with GitLab no-cache headers', async () => {
    const badge = await get('/root/shown/badges/main/pipeline.svg');
    assert.equal(badge.statusCode, 200);
    assert.equal(badge.headers['content-type'], 'image/svg+xml; charset=utf-8');
    assert.equal(badge.headers['cache-control'], 'max-age=0, private, must-revalidate, no-store');
    assert.equal(badge.headers.expires, 'Fri, 01 Jan 1990 00:00:00 GMT');
    assert.equal(badge.headers.pragma, 'no-cache');
    assert.match(badge.body, /<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="116" height="20">/);
    assert.match(badge.body, /fill="#9f9f9f"/);
    assert.match(badge.body, /<text x="89" y="14">unknown<\/text>/);
  });

  it('shows the newest pipeline of the ref: passed in green; a newer skipped one hidden by ignore_skipped', async () => {
    const older = await seedPipeline(gantry.coordinator, { projectId: publicId, ref: 'feature/x', jobs: [{ name: 'a', stage: 'test' }], process: false });
    await gantry.coordinator.context.stores.pipelines.update(older.pipeline.id, { status: 'success' });
    const passed = await get('/root/shown/badges/feature/x/pipeline.svg');
    assert.match(passed.body, /fill="#4c1"/);
    assert.match(passed.body, />passed<\/text>/);
    const newer = await seedPipeline(gantry.coordinator, { projectId: publicId, ref: 'feature/x', jobs: [{ name: 'a', stage: 'test' }], process: false });
    await gantry.coordinator.context.stores.pipelines.update(newer.pipeline.id, { status: 'skipped' });
    assert.match((await get('/root/shown/badges/feature/x/pipeline.svg')).body, />skipped<\/text>/);
    assert.match((await get('/root/shown/badges/feature/x/pipeline.svg?ignore_skipped=true')).body, />passed<\/text>/);
  });

  it('takes key_text and key_width within GitLab limits and escapes the text', async () => {
    const custom = await get('/root/shown/badges/main/pipeline.svg?key_text=%3Cb%3Ebuild&key_width=100');
    assert.match(custom.body, /width="154"/);
    assert.match(custom.body, /<text x="50" y="14">&lt;b&gt;build<\/text>/);
    const outOfRange = await get(`/root/shown/badges/main/pipeline.svg?key_text=${'k'.repeat(65)}&key_width=513`);
    assert.match(outOfRange.body, /width="116"/);
    assert.match(outOfRange.body, />pipeline<\/text>/);
  });

  it('shows the coverage of the newest successful pipeline, coloured by threshold', async () => {
    assert.match((await get('/root/shown/badges/main/coverage.svg')).body, /width="120"[\s\S]*>unknown<\/text>/);
    const seeded = await seedPipeline(gantry.coordinator, { projectId: publicId, ref: 'main', jobs: [{ name: 'a', stage: 'test' }], process: false });
    await gantry.coordinator.context.stores.pipelines.update(seeded.pipeline.id, { status: 'success', coverage: '91.456' });
    const badge = await get('/root/shown/badges/main/coverage.svg');
    assert.match(badge.body, />91.46%<\/text>/);
    assert.match(badge.body, /fill="#a3c51c"/);
    assert.match((await get('/root/shown/badges/main/coverage.svg?min_good=80')).body, /fill="#4c1"/);
  });

  it('answers 404 for the badge of a project the visitor cannot see, as for one that does not exist', async () => {
    const hidden = await get('/root/hidden/badges/main/pipeline.svg');
    const missing = await get('/root/missing/badges/main/pipeline.svg');
    assert.equal(hidden.statusCode, 404);
    assert.equal(missing.statusCode, 404);
    assert.equal(hidden.body, missing.body);
  });

  it('lists what the API shows an anonymous visitor, with descriptions escaped', async () => {
    const page = await get('/explore/projects');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt; &amp; &lt;b&gt;bold&lt;\/b&gt;/);
    assert.doesNotMatch(page.body, /<script>alert/);
    assert.doesNotMatch(page.body, /hidden/);
    // An icon of its own (empty), so the browser does not ask for a /favicon.ico we do not serve and log its 404 as a console error.
    assert.match(page.body, /<link rel="icon" href="data:,">/);
  });

  it('leads a signed-in user from / to their own projects (the dashboard), and an anonymous visitor to explore', async () => {
    assert.equal((await get('/')).headers.location, '/explore/projects');
    const anonymousDashboard = await get('/dashboard/projects');
    assert.equal(anonymousDashboard.statusCode, 302);
    assert.equal(anonymousDashboard.headers.location, '/users/sign_in?redirect_to=%2Fdashboard%2Fprojects');
    const dora = await gantry.createUser('dora');
    assert.equal((await gantry.api('POST', '/projects', { token: dora.token, body: { name: 'Doras own', visibility: 'private' } })).status, 201);
    const browser = await new PageClient(gantry).signIn('dora');
    assert.equal((await browser.get('/')).headers.location, '/dashboard/projects');
    assert.equal((await browser.get('/dashboard')).headers.location, '/dashboard/projects');
    const dashboard = await browser.get('/dashboard/projects');
    assert.equal(dashboard.statusCode, 200);
    assert.match(dashboard.body, /<h1>Your projects<\/h1>/);
    assert.match(dashboard.body, /User dora \/ Doras own/);
    assert.doesNotMatch(dashboard.body, /Shown/, 'a public project she is no member of is explore\'s, not hers');
    assert.match((await browser.get('/explore/projects')).body, /Shown/);
  });

  it('leaves git over HTTP and unknown paths as they were', async () => {
    const refs = await get('/root/shown.git/info/refs?service=git-upload-pack');
    assert.notEqual(refs.statusCode, 404);
    // As GitLab's route_not_found: an anonymous visitor is asked to sign in, not told there is nothing there.
    const unknown = await get('/root/shown/nothing-here');
    assert.equal(unknown.statusCode, 302);
    assert.equal(unknown.headers.location, '/users/sign_in?redirect_to=%2Froot%2Fshown%2Fnothing-here');
  });
});
