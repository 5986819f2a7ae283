import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { moveJob, seedPipeline, type SeededPipeline } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

describe('web pipeline pages', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let seeded: SeededPipeline;
  let developer: PageClient;
  let reporter: PageClient;
  let stranger: PageClient;
  let anonymous: PageClient;

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    const created = await gantry.api('POST', '/projects', { body: { name: 'Secret', path: 'secret', visibility: 'private' } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
    for (const [username, level] of [['dev', 30], ['rep', 20]] as const) {
      const user = await gantry.createUser(username);
      const member = await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: user.id, access_level: level } });
      assert.equal(member.status, 201, member.text);
    }
    await gantry.createUser('stranger');
    seeded = await seedPipeline(gantry.coordinator, {
      projectId,
      ref: 'feature/<b>x</b>',
      jobs: [
        { name: 'build', stage: 'build' },
        { name: 'unit <script>alert(1)</script>', stage: 'test', needs: [{ name: 'build' }] },
        { name: 'lint', stage: 'test' },
        { name: 'approve', stage: 'build', when: 'manual' },
        { name: 'deploy', stage: 'deploy', needs: [{ name: 'build' }] },
      ],
    });
    developer = await new PageClient(gantry).signIn('dev');
    reporter = await new PageClient(gantry).signIn('rep');
    stranger = await new PageClient(gantry).signIn('stranger');
    anonymous = new PageClient(gantry);
  });
  after(() => gantry.close());

  const pipelinePath = () => `/root/secret/-/pipelines/${seeded.pipeline.id}`;

  it('lists the pipelines newest first with status, ref, commit and a link to each', async () => {
    const newer = await seedPipeline(gantry.coordinator, { projectId, ref: 'main', jobs: [{ name: 'only', stage: 'test' }] });
    const page = await developer.get('/root/secret/-/pipelines');
    assert.equal(page.statusCode, 200);
    assert.match(page.headers['content-security-policy'] as string, /default-src 'none'/);
    const newerAt = page.body.indexOf(`href="/root/secret/-/pipelines/${newer.pipeline.id}"`);
    const olderAt = page.body.indexOf(`href="/root/secret/-/pipelines/${seeded.pipeline.id}"`);
    assert.ok(newerAt > 0 && olderAt > newerAt, 'newest first');
    assert.match(page.body, /feature\/&lt;b&gt;x&lt;\/b&gt;/);
    assert.match(page.body, /href="\/root\/secret\/-\/commit\/b{40}">bbbbbbbb<\/a>/);
    const finished = await developer.get('/root/secret/-/pipelines?scope=finished');
    assert.doesNotMatch(finished.body, /-\/pipelines\/\d+"/, 'no pipeline has finished yet');
  });

  it('draws stages as columns, needs as edges and links every job to its page, escaping names', async () => {
    const page = await developer.get(pipelinePath());
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<svg class="pipeline-graph"/);
    for (const job of Object.values(seeded.jobs)) assert.ok(page.body.includes(`href="/root/secret/-/jobs/${job.id}"`), job.name);
    assert.equal((page.body.match(/<path class="need"/g) ?? []).length, 2, 'unit and deploy need build');
    assert.match(page.body, /<title>deploy needs build<\/title>/);
    assert.match(page.body, />build<\/text>[\s\S]*>test<\/text>[\s\S]*>deploy<\/text>/);
    assert.doesNotMatch(page.body, /<script>alert/);
    assert.match(page.body, /unit &lt;script&gt;/);
  });

  it('answers a stranger the same 404 page as a missing project, and sends an anonymous visitor to sign in', async () => {
    const hidden = await stranger.get(pipelinePath());
    const missing = await stranger.get('/root/nothing/-/pipelines/1');
    assert.equal(hidden.statusCode, 404);
    assert.equal(hidden.body, missing.body);
    assert.equal((await stranger.get('/root/secret/-/pipelines')).statusCode, 404);
    const asked = await anonymous.get(pipelinePath());
    assert.equal(asked.statusCode, 302);
    assert.equal(asked.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(pipelinePath())}`);
    assert.equal((await anonymous.get('/root/nothing/-/pipelines/1')).headers.location, '/users/sign_in?redirect_to=%2Froot%2Fnothing%2F-%2Fpipelines%2F1');
    assert.equal((await developer.get('/root/secret/-/pipelines/999999')).statusCode, 404);
  });

  it('shows retry, cancel and play only to those allowed, and refuses a reporter who posts anyway', async () => {
    const forDeveloper = await developer.get(pipelinePath());
    assert.match(forDeveloper.body, /action="\/root\/secret\/-\/pipelines\/\d+\/cancel"/);
    // The job buttons post to the job's own path, as the job page's do.
    assert.match(forDeveloper.body, new RegExp(`action="/root/secret/-/jobs/${seeded.jobs.approve!.id}/play"><input type="hidden" name="authenticity_token" value="[^"]+"><input type="hidden" name="return_to" value="pipeline">`));
    assert.doesNotMatch(forDeveloper.body, /\/pipelines\/\d+\/jobs\//);
    const forReporter = await reporter.get(pipelinePath());
    assert.equal(forReporter.statusCode, 200);
    assert.doesNotMatch(forReporter.body, /\/cancel"|\/play"|\/retry"/);
    const before = (await gantry.coordinator.context.stores.pipelines.findById(seeded.pipeline.id))?.status;
    assert.notEqual(before, 'canceled');
    const refused = await reporter.post(`${pipelinePath()}/cancel`, { authenticity_token: PageClient.formToken(forReporter) });
    assert.equal(refused.statusCode, 403);
    assert.equal((await gantry.coordinator.context.stores.pipelines.findById(seeded.pipeline.id))?.status, before);
  });

  it('refuses a form without its CSRF token and changes nothing', async () => {
    const before = (await gantry.coordinator.context.stores.pipelines.findById(seeded.pipeline.id))?.status;
    assert.notEqual(before, 'canceled');
    const refused = await developer.post(`${pipelinePath()}/cancel`, {});
    assert.equal(refused.statusCode, 422);
    const forged = await developer.post(`${pipelinePath()}/cancel`, { authenticity_token: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 422);
    assert.equal((await gantry.coordinator.context.stores.pipelines.findById(seeded.pipeline.id))?.status, before);
    assert.equal((await anonymous.post(`${pipelinePath()}/cancel`, {})).statusCode, 403);
  });

  it('plays a manual job, retries a failed one and cancels the pipeline through the forms', async () => {
    const token = PageClient.formToken(await developer.get(pipelinePath()));
    const { jobs } = gantry.coordinator.context.stores;
    const played = await developer.post(`/root/secret/-/jobs/${seeded.jobs.approve!.id}/play`, { authenticity_token: token, return_to: 'pipeline' });
    assert.equal(played.statusCode, 303);
    assert.equal(played.headers.location, pipelinePath());
    assert.notEqual((await jobs.findById(seeded.jobs.approve!.id))?.status, 'manual');

    await moveJob(gantry.coordinator, seeded.jobs.build!, 'running');
    await moveJob(gantry.coordinator, seeded.jobs.build!, 'failed');
    const retried = await developer.post(`/root/secret/-/jobs/${seeded.jobs.build!.id}/retry`, { authenticity_token: token, return_to: 'pipeline' });
    assert.equal(retried.statusCode, 303);
    assert.equal(retried.headers.location, pipelinePath());
    const builds = (await jobs.list({ pipelineId: seeded.pipeline.id, types: ['build'], includeRetried: true, sort: 'asc' }, { offset: 0, limit: 50 })).items.filter((job) => job.name === 'build');
    assert.equal(builds.length, 2, 'a new build job');
    assert.equal(builds[1]!.status, 'pending');

    const retiredPath = await developer.post(`${pipelinePath()}/jobs/${seeded.jobs.lint!.id}/cancel`, { authenticity_token: token });
    assert.equal(retiredPath.statusCode, 404, 'the pipeline-scoped job path is gone');
    assert.notEqual((await jobs.findById(seeded.jobs.lint!.id))?.status, 'canceled');

    const canceled = await developer.post(`${pipelinePath()}/cancel`, { authenticity_token: token });
    assert.equal(canceled.statusCode, 303);
    assert.equal((await gantry.coordinator.context.stores.pipelines.findById(seeded.pipeline.id))?.status, 'canceled');
  });

  it("trigger-job rows: their play and retry forms work, and they offer no cancel (GitLab's bridge statuses)", async () => {
    const bridged = await seedPipeline(gantry.coordinator, {
      projectId,
      jobs: [{ name: 'spawn', stage: 'test', type: 'bridge', when: 'manual' }, { name: 'waiting-bridge', stage: 'test', type: 'bridge' }, { name: 'unit', stage: 'test' }],
    });
    const path = `/root/secret/-/pipelines/${bridged.pipeline.id}`;
    const page = await developer.get(path);
    const token = PageClient.formToken(page);
    assert.match(page.body, /Run spawn/);
    assert.match(page.body, /Cancel unit/, 'a pending build can be canceled');
    assert.doesNotMatch(page.body, /Cancel waiting-bridge/, 'a pending bridge cannot');
    // A trigger job has no job page: without a downstream pipeline its name is not a link (in the graph either).
    assert.doesNotMatch(page.body, new RegExp(`/-/jobs/${bridged.jobs['waiting-bridge']!.id}"`), 'no link to a job page a bridge does not have');
    assert.match(page.body, new RegExp(`/-/jobs/${bridged.jobs.unit!.id}"`), 'a build links to its job page');
    const { jobs } = gantry.coordinator.context.stores;
    const spawn = bridged.jobs.spawn!;
    const played = await developer.post(`/root/secret/-/jobs/${spawn.id}/play`, { authenticity_token: token, return_to: 'pipeline' });
    assert.equal(played.statusCode, 303);
    assert.equal(played.headers.location, path);
    assert.equal((await jobs.findById(spawn.id))?.status, 'pending');

    await moveJob(gantry.coordinator, spawn, 'success');
    assert.match((await developer.get(path)).body, /Retry spawn/);
    const retried = await developer.post(`/root/secret/-/jobs/${spawn.id}/retry`, { authenticity_token: token, return_to: 'pipeline' });
    assert.equal(retried.statusCode, 303);
    const attempts = (await jobs.list({ pipelineId: bridged.pipeline.id, types: ['bridge'], includeRetried: true, sort: 'asc' }, { offset: 0, limit: 50 })).items.filter((job) => job.name === 'spawn');
    assert.deepEqual(attempts.map((job) => [job.retried, job.status]), [[true, 'success'], [false, 'pending']], 'a new attempt');
  });

  it("a multi-project trigger job's play button shows only to who may update the downstream branch too, as its play decides", async () => {
    const project = async (path: string): Promise<number> => {
      const created = await gantry.api('POST', '/projects', { body: { name: path, path, visibility: 'private', initialize_with_readme: true } });
      assert.equal(created.status, 201, created.text);
      return created.json.id as number;
    };
    const member = async (id: number, userId: number, level: number): Promise<void> => {
      const added = await gantry.api('POST', `/projects/${id}/members`, { body: { user_id: userId, access_level: level } });
      assert.equal(added.status, 201, added.text);
    };
    const targetId = await project('target');
    const upstreamId = await project('upstream');
    const upstreamOnly = await gantry.createUser('upstream-only');
    const both = await gantry.createUser('both-sides');
    await member(upstreamId, upstreamOnly.id, 30);
    await member(upstreamId, both.id, 30);
    await member(targetId, both.id, 40);
    // The downstream project is named by a CI/CD variable only: the button asks where the pipeline would go.
    const variable = await gantry.api('POST', `/projects/${upstreamId}/variables`, { body: { key: 'TARGET', value: 'root/target' } });
    assert.equal(variable.status, 201, variable.text);
    const ci = 'build:\n  script: make\nspawn:\n  when: manual\n  trigger:\n    project: $TARGET\n';
    const commit = await gantry.api('POST', `/projects/${upstreamId}/repository/commits`, {
      body: { branch: 'work', start_branch: 'main', commit_message: 'ci', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: ci }] },
    });
    assert.equal(commit.status, 201, commit.text);
    const run = await gantry.api('POST', `/projects/${upstreamId}/pipeline`, { body: { ref: 'work' } });
    assert.equal(run.status, 201, run.text);
    const { items } = await gantry.coordinator.context.stores.jobs.list({ pipelineId: run.json.id as number, types: ['bridge'] }, { offset: 0, limit: 10 });
    const bridge = items.find((job) => job.name === 'spawn');
    assert.equal(bridge?.status, 'manual');
    const path = `/root/upstream/-/pipelines/${run.json.id as number}`;
    const playForm = `action="/root/upstream/-/jobs/${bridge.id}/play"`;

    const upstreamClient = await new PageClient(gantry).signIn('upstream-only');
    const forUpstreamOnly = await upstreamClient.get(path);
    assert.equal(forUpstreamOnly.statusCode, 200);
    assert.match(forUpstreamOnly.body, /Cancel pipeline/, 'may update the pipeline');
    assert.match(forUpstreamOnly.body, /Cancel build/, "and its builds");
    assert.ok(!forUpstreamOnly.body.includes(playForm), 'but not the downstream branch: no play button');
    const refused = await upstreamClient.post(`/root/upstream/-/jobs/${bridge.id}/play`, { authenticity_token: PageClient.formToken(forUpstreamOnly), return_to: 'pipeline' });
    assert.equal(refused.statusCode, 403, 'as the play itself decides');

    const forBoth = await (await new PageClient(gantry).signIn('both-sides')).get(path);
    assert.ok(forBoth.body.includes(playForm), 'a maintainer of the downstream project gets it');
    assert.match(forBoth.body, /Run spawn/);
  });

  it('a trigger job failed by a pipeline loop offers no retry (GitLab\'s Bridge#retryable?: the jobs API refuses it)', async () => {
    const failed = await seedPipeline(gantry.coordinator, { projectId, jobs: [{ name: 'looping', stage: 'test', type: 'bridge' }, { name: 'other', stage: 'test', type: 'bridge' }] });
    await moveJob(gantry.coordinator, failed.jobs.looping!, 'failed', 'pipeline_loop_detected');
    await moveJob(gantry.coordinator, failed.jobs.other!, 'failed', 'downstream_pipeline_creation_failed');
    const page = await developer.get(`/root/secret/-/pipelines/${failed.pipeline.id}`);
    assert.match(page.body, /Retry other/);
    assert.doesNotMatch(page.body, /Retry looping/);
  });

  it("a build's play and retry buttons follow its own rules: none for an outdated deployment job, which the jobs API refuses", async () => {
    const created = await gantry.api('POST', '/projects', { body: { name: 'deployer', path: 'deployer', visibility: 'private', initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    const id = created.json.id as number;
    const [dev] = (await gantry.api('GET', '/users?username=dev')).list;
    assert.equal((await gantry.api('POST', `/projects/${id}/members`, { body: { user_id: dev!.id as number, access_level: 30 } })).status, 201);
    const ci = 'workflow: { auto_cancel: { on_new_commit: none } }\ndeploy:\n  script: ./deploy\n  environment: production\nmanual-deploy:\n  script: ./deploy\n  when: manual\n  environment: production\n';
    const run = async (file: string, content: string, start?: string): Promise<Record<string, { id: number; pipeline_id: number }>> => {
      const commit = await gantry.api('POST', `/projects/${id}/repository/commits`, { body: { branch: 'work', ...(start && { start_branch: start }), commit_message: file, actions: [{ action: 'create', file_path: file, content }] } });
      assert.equal(commit.status, 201, commit.text);
      const pipeline = await gantry.api('POST', `/projects/${id}/pipeline`, { body: { ref: 'work' } });
      assert.equal(pipeline.status, 201, pipeline.text);
      const { items } = await gantry.coordinator.context.stores.jobs.list({ pipelineId: pipeline.json.id as number }, { offset: 0, limit: 10 });
      return Object.fromEntries(items.map((job) => [job.name, job]));
    };
    const older = await run('.gitlab-ci.yml', ci, 'main');
    const newer = await run('second.txt', 'second');
    for (const deploy of [older.deploy!, newer.deploy!]) {
      await moveJob(gantry.coordinator, deploy, 'running');
      await moveJob(gantry.coordinator, deploy, 'success');
    }
    const rollbacks = async (allowed: boolean) => assert.equal((await gantry.api('PUT', `/projects/${id}`, { body: { ci_forward_deployment_rollback_allowed: allowed } })).status, 200);
    const pageOf = (jobs: Record<string, { pipeline_id: number }>) => developer.get(`/root/deployer/-/pipelines/${jobs.deploy!.pipeline_id}`);

    await rollbacks(false);
    const current = await pageOf(newer);
    assert.match(current.body, /Run manual-deploy/, 'the Developer may play the current deployment');
    assert.match(current.body, /Retry deploy/);
    const outdated = await pageOf(older);
    assert.match(outdated.body, /<div class="actions">/, 'and may update the older pipeline (its actions shown)');
    assert.doesNotMatch(outdated.body, /Run manual-deploy/, 'not the outdated manual deployment');
    assert.doesNotMatch(outdated.body, /Retry deploy/, 'nor retry the outdated one without rollbacks');
    const refused = await developer.post(`/root/deployer/-/jobs/${older['manual-deploy']!.id}/play`, { authenticity_token: PageClient.formToken(outdated), return_to: 'pipeline' });
    assert.equal(refused.statusCode, 403, 'as the play itself decides');
    await rollbacks(true);
    const rollback = await pageOf(older);
    assert.match(rollback.body, /Retry deploy/, 'a finished one is retried as a rollback when the project allows them');
    assert.doesNotMatch(rollback.body, /Run manual-deploy/);
  });

  it('links a trigger job to its child pipeline, and the child back to its parent', async () => {
    const parent = await seedPipeline(gantry.coordinator, { projectId, jobs: [{ name: 'trigger <i>child</i>', stage: 'test', type: 'bridge' }], process: false });
    const bridge = parent.jobs['trigger <i>child</i>']!;
    const child = await gantry.coordinator.context.stores.pipelines.create({
      project_id: projectId, ref: 'main', sha: 'b'.repeat(40), source: 'parent_pipeline', status: 'running', parent_pipeline_id: parent.pipeline.id, source_job_id: bridge.id, created_at: new Date().toISOString(),
    });
    const page = await developer.get(`/root/secret/-/pipelines/${parent.pipeline.id}`);
    assert.match(page.body, new RegExp(`<h2>Downstream</h2><ul><li>trigger &lt;i&gt;child&lt;/i&gt;: <a href="/root/secret/-/pipelines/${child.id}">root/secret #${child.id}</a>`));
    assert.ok(page.body.includes(`<a href="/root/secret/-/pipelines/${child.id}" class="job status-created">`), 'the trigger job box leads to the child pipeline');
    const childPage = await developer.get(`/root/secret/-/pipelines/${child.id}`);
    assert.match(childPage.body, new RegExp(`Child pipeline of <a href="/root/secret/-/pipelines/${parent.pipeline.id}">`));
  });

  it('resolves the web_url of every pipeline the API lists', async () => {
    const listed = await gantry.api('GET', `/projects/${projectId}/pipelines`);
    assert.ok(listed.list.length >= 2);
    for (const pipeline of listed.list) {
      const url = new URL(pipeline.web_url as string);
      assert.equal(url.origin, 'http://gantry.test');
      assert.equal((await developer.get(url.pathname)).statusCode, 200, url.pathname);
    }
  });

  it('leaves the API and git paths to their own answers', async () => {
    const api = await anonymous.get('/api/v4/no/such/-/pipelines');
    assert.equal(api.statusCode, 404);
    assert.match(api.headers['content-type'] as string, /json/);
  });
});
