import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addMember } from '../coordinator/groups-fixtures.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { PageClient } from './page-client.ts';

describe('the job page', () => {
  let fixture: RunnerJobsFixture;
  let member: PageClient;
  let outsider: PageClient;
  let developerSession: PageClient;
  let jobPath: string;
  let jobId: number;
  let token: string;
  const trace = Buffer.from('\x1b[32mhello\x1b[0m <b>world</b>\nsecond line\n');

  before(async () => {
    fixture = await startRunnerJobsFixture();
    const reader = await fixture.gantry.createUser('job-reader');
    await fixture.gantry.createUser('job-outsider');
    const developer = await fixture.gantry.createUser('job-developer');
    const project = await fixture.project('web-job');
    await addMember(fixture.gantry, { type: 'project', id: project.id }, reader.id, 40);
    // main is protected: a developer reads the job but may not cancel or retry it, as on the API.
    await addMember(fixture.gantry, { type: 'project', id: project.id }, developer.id, 30);
    await fixture.pipeline(project, [{ name: 'build <script>', stage: 'build' }]);
    const claimed = await fixture.claim();
    jobId = claimed.job.id;
    token = claimed.token;
    const patched = await fetch(`${fixture.apiUrl}/jobs/${jobId}/trace`, { method: 'PATCH', headers: { 'content-type': 'text/plain', 'job-token': token, 'content-range': `0-${trace.length - 1}` }, body: trace });
    assert.equal(patched.status, 202);
    jobPath = `/root/web-job/-/jobs/${jobId}`;
    member = new PageClient(fixture.gantry);
    await member.signIn('job-reader');
    outsider = new PageClient(fixture.gantry);
    await outsider.signIn('job-outsider');
    developerSession = new PageClient(fixture.gantry);
    await developerSession.signIn('job-developer');
  });
  after(async () => {
    await fixture?.close();
  });

  it('shows the job to a member: its name escaped, stage, runner, pipeline, commit, the cancel button and the log script', async () => {
    const page = await member.get(jobPath);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
    assert.match(page.body, /build &lt;script&gt;/);
    assert.doesNotMatch(page.body, /build <script>/);
    assert.match(page.body, /<dt>Stage<\/dt><dd>build<\/dd>/);
    assert.match(page.body, /test runner \(#\d+\)/);
    assert.match(page.body, /href="\/root\/web-job\/-\/pipelines\/\d+"/);
    assert.match(page.body, new RegExp(`action="${jobPath}/cancel"`));
    assert.doesNotMatch(page.body, /\/retry"/, 'a running job is not retried');
    const script = /<script src="([^"]+)" defer><\/script>/.exec(page.body);
    assert.ok(script, 'the page loads the log script');
    assert.match(script[1]!, /^\/-\/gantry\/job-log\.[0-9a-f]{16}\.js$/);
    const served = await member.get(script[1]!);
    assert.equal(served.statusCode, 200);
    assert.match(String(served.headers['content-type']), /text\/javascript/);
    assert.match(String(served.headers['cache-control']), /immutable/);
    assert.ok(served.body.length > 1000);
  });

  it('answers a private project\'s job with the same 404 as a missing one, or to an anonymous visitor the same sign-in', async () => {
    const anonymous = new PageClient(fixture.gantry);
    const missing = await member.get(`/root/web-job/-/jobs/999999`);
    for (const path of [jobPath, `${jobPath}/raw`]) {
      const hidden = await outsider.get(path);
      assert.equal(hidden.statusCode, 404, path);
      assert.equal(hidden.body.replace(/<header[\s\S]*<\/header>/, ''), missing.body.replace(/<header[\s\S]*<\/header>/, ''));
    }
    // As GitLab's route_not_found: a hidden project and a missing one both ask an anonymous visitor to sign in.
    for (const path of [jobPath, `${jobPath}/raw`, `/root/no-such-project/-/jobs/${jobId}`]) {
      const asked = await anonymous.get(path);
      assert.equal(asked.statusCode, 302, path);
      assert.equal(asked.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(path)}`);
    }
    assert.equal(missing.statusCode, 404);
  });

  it('lists the project\'s jobs at the job page\'s breadcrumb link, newest first, by scope', async () => {
    const jobPage = await member.get(jobPath);
    assert.match(jobPage.body, /<a href="\/root\/web-job\/-\/jobs">Jobs<\/a>/);
    const list = await member.get('/root/web-job/-/jobs');
    assert.equal(list.statusCode, 200, list.body);
    assert.match(list.body, new RegExp(`<a href="${jobPath}">build &lt;script&gt; #${jobId}</a>`));
    assert.match(list.body, /<td>build<\/td>/);
    assert.match(list.body, /href="\/root\/web-job\/-\/pipelines\/\d+">#\d+<\/a>/);
    assert.doesNotMatch(list.body, /build <script>/);
    assert.match((await member.get('/root/web-job/-/jobs?scope=running')).body, new RegExp(`#${jobId}</a>`));
    assert.doesNotMatch((await member.get('/root/web-job/-/jobs?scope=finished')).body, new RegExp(`#${jobId}</a>`));
    assert.equal((await outsider.get('/root/web-job/-/jobs')).statusCode, 404);
  });

  it('serves the raw log whole, or the part a Range asks for (206), and 416 past its end', async () => {
    const whole = await member.get(`${jobPath}/raw`);
    assert.equal(whole.statusCode, 200);
    assert.equal(whole.rawPayload.toString('latin1'), trace.toString('latin1'));
    assert.equal(whole.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(whole.headers['x-gantry-job-status'], 'running');
    assert.equal(whole.headers['content-disposition'], undefined);
    const part = await member.get(`${jobPath}/raw`, { range: 'bytes=6-' });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 6-${trace.length - 1}/${trace.length}`);
    assert.equal(part.rawPayload.toString('latin1'), trace.subarray(6).toString('latin1'));
    const closed = await member.get(`${jobPath}/raw`, { range: 'bytes=2-4' });
    assert.equal(closed.statusCode, 206);
    assert.equal(closed.rawPayload.toString('latin1'), trace.subarray(2, 5).toString('latin1'));
    const past = await member.get(`${jobPath}/raw`, { range: `bytes=${trace.length}-` });
    assert.equal(past.statusCode, 416);
    assert.equal(past.headers['content-range'], `bytes */${trace.length}`);
    const download = await member.get(`${jobPath}/raw?download=true`);
    assert.equal(download.headers['content-disposition'], `attachment; filename="job-${jobId}.log"`);
  });

  it('answers a large log at most a megabyte per ranged read, and streams it whole without a range', async () => {
    const line = `${'x'.repeat(99)}\n`;
    const more = Buffer.from(line.repeat(30_000));
    const at = trace.length;
    const patched = await fetch(`${fixture.apiUrl}/jobs/${jobId}/trace`, { method: 'PATCH', headers: { 'content-type': 'text/plain', 'job-token': token, 'content-range': `${at}-${at + more.length - 1}` }, body: more });
    assert.equal(patched.status, 202);
    const total = at + more.length;
    const first = await member.get(`${jobPath}/raw`, { range: 'bytes=0-' });
    assert.equal(first.statusCode, 206);
    assert.equal(first.rawPayload.length, 1024 * 1024);
    assert.equal(first.headers['content-range'], `bytes 0-${1024 * 1024 - 1}/${total}`);
    const whole = await member.get(`${jobPath}/raw`);
    assert.equal(whole.rawPayload.length, total);
    assert.equal(whole.headers['content-length'], String(total));
  });

  it('cancels with the button only with the session\'s token, and hides the buttons from who may not use them', async () => {
    const readOnly = await developerSession.get(jobPath);
    assert.equal(readOnly.statusCode, 200);
    assert.doesNotMatch(readOnly.body, /\/cancel"|\/retry"/);
    const refused = await developerSession.post(`${jobPath}/cancel`, { authenticity_token: PageClient.formToken(readOnly) });
    assert.equal(refused.statusCode, 403);
    assert.equal((await fixture.job(jobId)).status, 'running');
    const page = await member.get(jobPath);
    const forged = await member.post(`${jobPath}/cancel`, { authenticity_token: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 422);
    assert.equal((await fixture.job(jobId)).status, 'running');
    const anonymous = await new PageClient(fixture.gantry).post(`${jobPath}/cancel`, { authenticity_token: PageClient.formToken(page) });
    assert.equal(anonymous.statusCode, 302);
    assert.equal((await fixture.job(jobId)).status, 'running');
    const canceled = await member.post(`${jobPath}/cancel`, { authenticity_token: PageClient.formToken(page) });
    assert.equal(canceled.statusCode, 303, canceled.body);
    assert.equal(canceled.headers.location, jobPath);
    assert.equal((await fixture.job(jobId)).status, 'canceled');
    const after = await member.get(jobPath);
    assert.match(after.body, new RegExp(`action="${jobPath}/retry"`));
    const retried = await member.post(`${jobPath}/retry`, { authenticity_token: PageClient.formToken(after) });
    assert.equal(retried.statusCode, 303, retried.body);
    assert.notEqual(retried.headers.location, jobPath, 'the retry opens the new job');
    assert.match(String(retried.headers.location), /^\/root\/web-job\/-\/jobs\/\d+$/);
  });
  it('says which resource a job waiting for its resource_group waits for', async () => {
    const project = await fixture.project('web-wait', { visibility: 'public' });
    const seeded = await fixture.pipeline(project, [
      { name: 'first', stage: 'deploy', resourceGroup: 'production' },
      { name: 'second', stage: 'deploy', resourceGroup: 'production' },
    ]);
    const second = seeded.jobs.second!;
    const page = await member.get(`/root/web-wait/-/jobs/${second.id}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<span id="job-status">waiting_for_resource<\/span>/);
    assert.match(page.body, /This job is waiting for resource: production/);
  });

  it("says a failed job's reason in GitLab's words, and nothing of a script failure (its log says it)", async () => {
    const project = await fixture.project('web-failed', { visibility: 'public' });
    const seeded = await fixture.pipeline(project, [{ name: 'scripted', stage: 'test' }, { name: 'stuck', stage: 'test' }]);
    const failures = { scripted: 'script_failure', stuck: 'stuck_pending_no_matching_runners' } as const;
    for (const [name, reason] of Object.entries(failures)) {
      const job = seeded.jobs[name]!;
      await moveJob(fixture.gantry.coordinator, job, 'running');
      await moveJob(fixture.gantry.coordinator, job, 'failed', reason);
    }
    const stuck = await member.get(`/root/web-failed/-/jobs/${seeded.jobs.stuck!.id}`);
    assert.match(stuck.body, /<dt>Failure reason<\/dt><dd id="job-failure-reason">The job was stuck in pending state with no matching runners available\. Check your runner tags or configuration<\/dd>/);
    assert.doesNotMatch(stuck.body, /stuck_pending_no_matching_runners/);
    const scripted = await member.get(`/root/web-failed/-/jobs/${seeded.jobs.scripted!.id}`);
    assert.match(scripted.body, /<span id="job-status">failed<\/span>/);
    assert.doesNotMatch(scripted.body, /Failure reason|script_failure/);
  });
});
