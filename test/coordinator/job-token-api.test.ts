import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { runnerRequest, uploadBody, zipBytes } from '../helpers/runner-artifacts.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from '../helpers/runner-jobs.ts';

/** The API routes a CI job token signs in to (GitLab's `job_token_allowed`): releases and artifacts downloads. */
describe('API routes with a CI job token (JOB-TOKEN / job_token)', () => {
  let fixture: RunnerJobsFixture;
  let project: ProjectRecord;
  let other: ProjectRecord;

  before(async () => {
    fixture = await startRunnerJobsFixture();
    project = await fixture.project('jt-app');
    // The job's user is Developer here too: a job token still reads it as no one.
    other = await fixture.project('jt-other');
  });
  after(() => fixture.close());

  async function runningJob(name: string): Promise<{ jobId: number; token: string }> {
    await fixture.pipeline(project, [{ name, stage: 'build' }]);
    const { job, token } = await fixture.claim();
    return { jobId: job.id, token };
  }

  const withJobToken = (token: string) => ({ token: null, headers: { 'job-token': token } });

  it("creates a release on the job's project as the job's user (release-cli), and none on another project", async () => {
    const { token } = await runningJob('release');
    const api = fixture.gantry.api;
    const created = await api('POST', `/projects/${project.id}/releases`, { ...withJobToken(token), body: { tag_name: 'v1.0.0', ref: 'main', name: 'First', description: 'notes' } });
    assert.equal(created.status, 201, created.text);
    assert.equal((created.json.author as Record<string, unknown>).username, fixture.developer.username);
    assert.equal(created.json.tag_name, 'v1.0.0');
    const shown = await api('GET', `/projects/${project.id}/releases/v1.0.0?job_token=${encodeURIComponent(token)}`, { token: null });
    assert.equal(shown.status, 200, shown.text);
    // release-cli's own request: a JSON body with the project `id` and asset links.
    const cli = await api('POST', `/projects/${project.id}/releases`, {
      token: null,
      headers: { 'job-token': token, 'user-agent': 'GitLab-release-cli/v0.10.0' },
      body: { id: String(project.id), name: 'Second', description: 'more', tag_name: 'v1.1.0', ref: 'main', assets: { links: [{ name: 'bin', url: 'https://example.com/bin', link_type: 'package' }] } },
    });
    assert.equal(cli.status, 201, cli.text);
    assert.equal(((cli.json.assets as Record<string, unknown>).links as unknown[]).length, 1);
    assert.equal((await api('GET', `/projects/${project.id}/releases`, withJobToken(token))).list.length, 2);
    const link = await api('POST', `/projects/${project.id}/releases/v1.0.0/assets/links`, { ...withJobToken(token), body: { name: 'docs', url: 'https://example.com/docs' } });
    assert.equal(link.status, 201, link.text);

    // Another project: no more than an anonymous caller, though the user is its Developer.
    const elsewhere = await api('POST', `/projects/${other.id}/releases`, { ...withJobToken(token), body: { tag_name: 'v1.0.0', ref: 'main' } });
    assert.equal(elsewhere.status, 401, elsewhere.text);
    assert.equal((await api('GET', `/projects/${other.id}/releases`, withJobToken(token))).status, 404);
    assert.equal((await api('GET', `/projects/${other.id}/releases`, { token: fixture.developer.token })).list.length, 0);
  });

  it("downloads its project's artifacts with the job token", async () => {
    const { jobId, token } = await runningJob('package');
    const zip = await zipBytes({ 'out/app.txt': 'built' });
    const uploaded = await runnerRequest(fixture.baseUrl, 'POST', `/jobs/${jobId}/artifacts?artifact_format=zip&artifact_type=archive`, { token, body: uploadBody('out.zip', zip) });
    assert.equal(uploaded.status, 201, uploaded.text);
    const archive = await runnerRequest(fixture.baseUrl, 'GET', `/projects/${project.id}/jobs/${jobId}/artifacts`, { token });
    assert.equal(archive.status, 200, archive.text);
    assert.deepEqual(archive.bytes, zip);
    const file = await runnerRequest(fixture.baseUrl, 'GET', `/projects/${project.id}/jobs/${jobId}/artifacts/out/app.txt`, { token });
    assert.deepEqual([file.status, file.text], [200, 'built']);
    assert.equal((await runnerRequest(fixture.baseUrl, 'GET', `/projects/${project.id}/jobs/${jobId}/artifacts`)).status, 404, 'anonymous: the private project is not found');
  });

  it("refuses a finished job's token with 401, and other routes ignore job tokens", async () => {
    const { jobId, token } = await runningJob('done');
    const api = fixture.gantry.api;
    // Other routes do not take a job token: the caller is anonymous there.
    assert.equal((await api('GET', '/user', withJobToken(token))).status, 401);
    const listed = await api('GET', '/projects', withJobToken(token));
    assert.equal(listed.status, 200);
    assert.ok(!listed.list.some((entry) => entry.id === project.id), 'no private project of the job user');

    await fixture.gantry.coordinator.context.stores.jobs.update(jobId, { status: 'success', finished_at: new Date().toISOString() });
    for (const [method, path] of [['GET', `/projects/${project.id}/releases`], ['POST', `/projects/${project.id}/releases`], ['GET', `/projects/${project.id}/jobs/${jobId}/artifacts`]] as const) {
      const answer = await api(method, path, { ...withJobToken(token), ...(method === 'POST' ? { body: { tag_name: 'v9' } } : {}) });
      assert.deepEqual([answer.status, answer.json], [401, { message: '401 Unauthorized' }], `${method} ${path}`);
      assert.ok(!answer.text.includes(token));
    }
  });
});
