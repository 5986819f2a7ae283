import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startJobsFixture, type JobsFixture } from './jobs-fixtures.ts';

type CiProject = Awaited<ReturnType<JobsFixture['ciProject']>>;

/** GitLab's CreateCommitStatusService asks `update_pipeline` of the status's pipeline; GenericCommitStatus validates the fields. */
describe('commit statuses: update_pipeline and field rules', () => {
  let fixture: JobsFixture;

  before(async () => {
    fixture = await startJobsFixture();
  });
  after(() => fixture.close());

  const api = (...args: Parameters<JobsFixture['gantry']['api']>) => fixture.gantry.api(...args);
  const post = (project: CiProject, body: Record<string, unknown>, token?: string) => api('POST', `/projects/${project.id}/statuses/${project.head}`, { body, token });
  const statusesOf = async (project: CiProject) => (await api('GET', `/projects/${project.id}/repository/commits/${project.head}/statuses?all=true&ref=main`)).list;
  const pipelineStatus = async (id: number) => (await fixture.gantry.coordinator.context.stores.pipelines.findById(id))?.status;

  async function protect(project: CiProject): Promise<void> {
    const branch = await api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'main', push_access_level: 40, merge_access_level: 40 } });
    assert.equal(branch.status, 201, branch.text);
  }

  it("refuses a Developer's status into a protected branch's pipeline (403): it neither joins nor fails it", async () => {
    const project = await fixture.ciProject('statuses-protected');
    await protect(project);
    // Only an optional manual job: the external statuses decide the pipeline's status.
    const { pipeline } = await fixture.pipeline(project, [{ name: 'deploy', stage: 'deploy', when: 'manual', allowFailure: true }]);
    const before = await pipelineStatus(pipeline.id);
    assert.notEqual(before, 'failed');
    for (const body of [{ state: 'failed', ref: 'main' }, { state: 'failed' }, { state: 'failed', pipeline_id: pipeline.id }]) {
      const refused = await post(project, body, fixture.developer.token);
      assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden' }], JSON.stringify(body));
    }
    assert.equal(await pipelineStatus(pipeline.id), before);
    assert.deepEqual((await statusesOf(project)).map((status) => status.name), ['deploy']);

    const byMaintainer = await post(project, { state: 'failed', ref: 'main', name: 'review' }, fixture.maintainer.token);
    assert.equal(byMaintainer.status, 201, byMaintainer.text);
    assert.equal(byMaintainer.json.pipeline_id, pipeline.id);
    assert.equal(await pipelineStatus(pipeline.id), 'failed');
  });

  it('refuses a Developer on a protected branch without a pipeline (no external pipeline is left behind) or a protected tag; unprotected refs stay open', async () => {
    const project = await fixture.ciProject('statuses-protected-new');
    await protect(project);
    assert.equal((await api('POST', `/projects/${project.id}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } })).status, 201);
    assert.equal((await api('POST', `/projects/${project.id}/protected_tags`, { body: { name: 'v*', create_access_level: 40 } })).status, 201);
    for (const ref of ['main', 'v1']) {
      assert.equal((await post(project, { state: 'running', ref }, fixture.developer.token)).status, 403, ref);
    }
    const { total } = await fixture.gantry.coordinator.context.stores.pipelines.list({ projectId: project.id }, { offset: 0, limit: 10 });
    assert.equal(total, 0);
    const open = await post(project, { state: 'running', ref: 'feature-x' }, fixture.developer.token);
    assert.deepEqual([open.status, open.json.ref], [201, 'feature-x']);
  });

  it("takes pipeline_id's ref, and refuses a pipeline_id of another ref (404)", async () => {
    const project = await fixture.ciProject('statuses-pipeline-id');
    const { pipeline } = await fixture.pipeline(project, [{ name: 'build', stage: 'build' }]);
    const mismatched = await post(project, { state: 'running', ref: 'feature-x', pipeline_id: pipeline.id }, fixture.developer.token);
    assert.deepEqual([mismatched.status, mismatched.json], [404, { message: '404 Pipeline Not Found' }]);
    const joined = await post(project, { state: 'running', pipeline_id: pipeline.id }, fixture.developer.token);
    assert.deepEqual([joined.status, joined.json.ref, joined.json.pipeline_id], [201, 'main', pipeline.id]);
  });

  it('refuses target URLs that are not http(s) and fields over 255 characters with GitLab\'s 400 body; nothing is stored', async () => {
    const project = await fixture.ciProject('statuses-fields');
    const schemes = 'is blocked: Only allowed schemes are http, https';
    const refusals: Array<[Record<string, unknown>, Record<string, string[]>]> = [
      [{ target_url: 'javascript:alert(document.cookie)' }, { target_url: [schemes] }],
      [{ target_url: 'data:text/html,<script>alert(1)</script>' }, { target_url: [schemes] }],
      [{ target_url: 'JavaScript:alert(1)' }, { target_url: [schemes] }],
      [{ target_url: 'invalid url' }, { target_url: [schemes] }],
      [{ target_url: 'git://example.com/repo' }, { target_url: [schemes] }],
      [{ target_url: '//example.com/relative' }, { target_url: [schemes] }],
      [{ target_url: 'https://ci.example/a\nb' }, { target_url: ['is blocked: URI is invalid'] }],
      [{ target_url: 'https://ci.example/a%0Ab' }, { target_url: ['is blocked: URI is invalid'] }],
      [{ target_url: 'https://-evil.example/' }, { target_url: ['is blocked: Hostname or IP address invalid'] }],
      [{ target_url: '   ' }, { target_url: ['must be a valid URL'] }],
      [{ target_url: `https://ci.example/${'a'.repeat(250)}` }, { target_url: ['is too long (maximum is 255 characters)'] }],
      [{ target_url: `ftp://ci.example/${'a'.repeat(250)}` }, { target_url: ['is too long (maximum is 255 characters)', schemes] }],
      [{ name: 'n'.repeat(256) }, { name: ['is too long (maximum is 255 characters)'] }],
      [{ context: 'c'.repeat(256) }, { name: ['is too long (maximum is 255 characters)'] }],
      [{ description: 'd'.repeat(256) }, { description: ['is too long (maximum is 255 characters)'] }],
      [{ ref: `r${'/x'.repeat(128)}` }, { ref: ['is too long (maximum is 255 characters)'] }],
    ];
    for (const [fields, message] of refusals) {
      const refused = await post(project, { state: 'pending', ...fields }, fixture.developer.token);
      assert.deepEqual([refused.status, refused.json], [400, { message }], JSON.stringify(fields).slice(0, 80));
    }
    assert.deepEqual(await statusesOf(project), []);

    const accepted = await post(project, { state: 'pending', name: 'n'.repeat(255), description: 'd'.repeat(255), target_url: '  https://ci.example/builds/1  ' }, fixture.developer.token);
    assert.equal(accepted.status, 201, accepted.text);
    assert.equal(accepted.json.target_url, 'https://ci.example/builds/1');
    for (const targetUrl of ['http://10.0.0.7:8080/job', 'http://[::1]/job', 'https://ci.example']) {
      const ok = await post(project, { state: 'pending', name: targetUrl, target_url: targetUrl }, fixture.developer.token);
      assert.deepEqual([ok.status, ok.json.target_url], [201, targetUrl]);
    }
  });
});
