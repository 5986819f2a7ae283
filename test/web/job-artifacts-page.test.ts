import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember } from '../coordinator/groups-fixtures.ts';
import { runnerRequest, uploadBody, zipBytes } from '../helpers/runner-artifacts.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';
import { ARTIFACT_CHILDREN_SHOWN } from '../../src/coordinator/web/artifact-browse.ts';
import { PageClient } from './page-client.ts';

describe('the job page: artifacts browsing and the play button', () => {
  let fixture: RunnerJobsFixture;
  let maintainer: PageClient;
  let outsider: PageClient;
  let jobPath: string;
  let manualPath: string;
  let manualId: number;

  before(async () => {
    fixture = await startRunnerJobsFixture();
    const reader = await fixture.gantry.createUser('art-maintainer');
    await fixture.gantry.createUser('art-outsider');
    const project = await fixture.project('web-art');
    await addMember(fixture.gantry, { type: 'project', id: project.id }, reader.id, 40);
    const seeded = await fixture.pipeline(project, [{ name: 'build', stage: 'build' }, { name: 'deploy', stage: 'build', when: 'manual' }]);
    manualId = seeded.jobs.deploy!.id;
    const claimed = await fixture.claim();
    const members: Record<string, string> = { 'report.txt': 'top level <b>report</b>\n', 'dist/app.js': 'console.log(1)\n', 'dist/deep/a/b.txt': 'deep\n', 'docs/<img src=x>.md': 'hostile name\n' };
    // One level of `wide/`: files across several index batches, directories whose subtrees are
    // skipped, and names that sort between a directory and its subtree (`d1-x.txt`, `d10/`).
    for (let index = 0; index < 250; index += 1) members[`wide/f${String(index).padStart(3, '0')}.txt`] = `${index}\n`;
    for (const directory of ['d1', 'd10', 'd2']) for (let index = 0; index < 300; index += 1) members[`wide/${directory}/sub/g${index}.txt`] = 'x\n';
    members['wide/d1-x.txt'] = 'between\n';
    for (let index = 0; index <= ARTIFACT_CHILDREN_SHOWN; index += 1) members[`many/m${String(index).padStart(4, '0')}.txt`] = 'm\n';
    const zip = await zipBytes(members);
    const uploaded = await runnerRequest(fixture.baseUrl, 'POST', `/jobs/${claimed.job.id}/artifacts`, { token: claimed.token, body: uploadBody('artifacts.zip', zip) });
    assert.equal(uploaded.status, 201, uploaded.text);
    jobPath = `/root/web-art/-/jobs/${claimed.job.id}`;
    manualPath = `/root/web-art/-/jobs/${manualId}`;
    maintainer = await new PageClient(fixture.gantry).signIn('art-maintainer');
    outsider = await new PageClient(fixture.gantry).signIn('art-outsider');
  });
  after(async () => {
    await fixture?.close();
  });

  it('links the browser from the job page and lists the top directory: directories first, then files with sizes', async () => {
    const page = await maintainer.get(jobPath);
    assert.match(page.body, new RegExp(`href="${jobPath}/artifacts/browse">Browse</a>`));
    const top = await maintainer.get(`${jobPath}/artifacts/browse`);
    assert.equal(top.statusCode, 200, top.body);
    const names = [...top.body.matchAll(/<tr><td><a href="([^"]+)"[^>]*>([^<]+)<\/a><\/td>/g)].map((match) => [match[1], match[2]]);
    assert.deepEqual(names, [
      [`${jobPath}/artifacts/browse/dist/`, 'dist/'],
      [`${jobPath}/artifacts/browse/docs/`, 'docs/'],
      [`${jobPath}/artifacts/browse/many/`, 'many/'],
      [`${jobPath}/artifacts/browse/wide/`, 'wide/'],
      [`${jobPath}/artifacts/file/report.txt`, 'report.txt'],
    ]);
    assert.match(top.body, /24 bytes/);
  });

  it('opens a directory whether or not the zip lists it, escapes member names, and 404s one that is not there', async () => {
    const dist = await maintainer.get(`${jobPath}/artifacts/browse/dist/`);
    assert.equal(dist.statusCode, 200);
    assert.match(dist.body, new RegExp(`href="${jobPath}/artifacts/browse/dist/deep/">deep/</a>`));
    assert.match(dist.body, new RegExp(`href="${jobPath}/artifacts/file/dist/app.js" download>app.js</a>`));
    assert.match(dist.body, new RegExp(`<a href="${jobPath}/artifacts/browse">\\.\\.</a>`));
    const docs = await maintainer.get(`${jobPath}/artifacts/browse/docs`);
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /&lt;img src=x&gt;\.md/);
    assert.doesNotMatch(docs.body, /<img src=x>/);
    assert.equal((await maintainer.get(`${jobPath}/artifacts/browse/nothing/`)).statusCode, 404);
    assert.equal((await maintainer.get(`${jobPath}/artifacts/browse/dist%2F..%2F..%2Fx/`)).statusCode, 400);
  });

  it('lists one directory level: every file across index batches, each child directory once, its subtree never listed', async () => {
    const wide = await maintainer.get(`${jobPath}/artifacts/browse/wide/`);
    assert.equal(wide.statusCode, 200);
    const names = [...wide.body.matchAll(/<td><a href="[^"]*\/artifacts\/(?:browse|file)\/wide\/[^"]*"(?: download)?>([^<]+)<\/a><\/td>/g)].map((match) => match[1]);
    const files = Array.from({ length: 250 }, (_, index) => `f${String(index).padStart(3, '0')}.txt`);
    assert.deepEqual(names, ['d1/', 'd10/', 'd2/', 'd1-x.txt', ...files].sort((a, b) => Number(b.endsWith('/')) - Number(a.endsWith('/')) || a.localeCompare(b)));
    assert.doesNotMatch(wide.body, /sub\/|more than/);
    const sub = await maintainer.get(`${jobPath}/artifacts/browse/wide/d10/sub/`);
    assert.equal([...sub.body.matchAll(/download>g\d+\.txt</g)].length, 300);
    const many = await maintainer.get(`${jobPath}/artifacts/browse/many/`);
    assert.equal([...many.body.matchAll(/download>m\d+\.txt</g)].length, ARTIFACT_CHILDREN_SHOWN);
    assert.match(many.body, new RegExp(`more than ${ARTIFACT_CHILDREN_SHOWN} entries`));
    assert.doesNotMatch(many.body, new RegExp(`m${ARTIFACT_CHILDREN_SHOWN}\\.txt`), 'the name past the cap');
  });

  it('downloads one member as an attachment, and refuses a path that climbs out', async () => {
    const file = await maintainer.get(`${jobPath}/artifacts/file/dist/deep/a/b.txt`);
    assert.equal(file.statusCode, 200);
    assert.equal(file.body, 'deep\n');
    assert.match(String(file.headers['content-disposition']), /attachment; filename="b.txt"/);
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.equal((await maintainer.get(`${jobPath}/artifacts/file/dist`)).statusCode, 404, 'a directory is no file');
    assert.equal((await maintainer.get(`${jobPath}/artifacts/file/missing.txt`)).statusCode, 404);
    assert.equal((await maintainer.get(`${jobPath}/artifacts/file/dist/..%2F..%2Freport.txt`)).statusCode, 400);
  });

  it('answers an outsider 404 for the browser and the files, and sends an anonymous visitor to sign in', async () => {
    const anonymous = new PageClient(fixture.gantry);
    for (const path of [`${jobPath}/artifacts/browse`, `${jobPath}/artifacts/file/report.txt`]) {
      assert.equal((await outsider.get(path)).statusCode, 404, path);
      const asked = await anonymous.get(path);
      assert.equal(asked.statusCode, 302, path);
      assert.equal(asked.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(path)}`);
    }
    assert.equal((await maintainer.get(`${manualPath}/artifacts/browse`)).statusCode, 404, 'a job without artifacts');
  });

  it('plays a manual job with its button, behind the session token', async () => {
    const page = await maintainer.get(manualPath);
    assert.match(page.body, new RegExp(`action="${manualPath}/play"`));
    assert.doesNotMatch(page.body, /\/retry"|\/cancel"/);
    const forged = await maintainer.post(`${manualPath}/play`, { authenticity_token: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 422);
    assert.equal((await fixture.job(manualId)).status, 'manual');
    const refused = await outsider.post(`${manualPath}/play`, { authenticity_token: PageClient.formToken(await outsider.get('/explore/projects')) });
    assert.equal(refused.statusCode, 404);
    assert.equal((await fixture.job(manualId)).status, 'manual');
    const played = await maintainer.post(`${manualPath}/play`, { authenticity_token: PageClient.formToken(page) });
    assert.equal(played.statusCode, 303, played.body);
    assert.equal(played.headers.location, manualPath);
    assert.equal((await fixture.job(manualId)).status, 'pending');
  });

  it('answers HEAD on the job page as GET, without a body', async () => {
    const head = await fixture.gantry.coordinator.app.inject({ method: 'HEAD', url: jobPath, headers: { cookie: [...maintainer.cookies].map(([name, value]) => `${name}=${value}`).join('; ') } });
    assert.equal(head.statusCode, 200);
    assert.match(String(head.headers['content-type']), /text\/html/);
    assert.equal(head.body, '');
  });
});
