import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { FileArtifactStore } from '../../src/storage/fs/artifacts.ts';
import { FileTraceStore } from '../../src/storage/fs/traces.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { moveJob, type SeededPipeline } from '../helpers/ci-pipelines.ts';
import { startPipelinesFixture, type PipelinesFixture } from './pipelines-fixtures.ts';

type Project = ProjectRecord & { headSha: string };

/** Retry, cancel and delete: the state-table rows of spec 02 and reference §6, and who may do each. */
describe('pipelines API: retry, cancel, delete', () => {
  let fixture: PipelinesFixture;
  let project: Project;

  before(async () => {
    fixture = await startPipelinesFixture();
    project = await fixture.project('actions');
  });
  after(() => fixture.close());

  const call = (method: 'POST' | 'DELETE', target: Project, pipelineId: number, action: string, token?: string | null) =>
    fixture.gantry.api(method, `/projects/${target.id}/pipelines/${pipelineId}${action ? `/${action}` : ''}`, token === undefined ? {} : { token });
  const statuses = async (pipelineId: number) => {
    const jobs = await fixture.gantry.coordinator.context.stores.jobs.loadPipelineJobs(pipelineId);
    return jobs.map((job) => `${job.name}${job.retried ? '(retried)' : ''}:${job.status}`).sort();
  };
  const move = (job: SeededPipeline['jobs'][string], status: 'running' | 'success' | 'failed') => moveJob(fixture.gantry.coordinator, job, status, status === 'failed' ? 'script_failure' : undefined);
  const twoStages = () => fixture.seed(project, { jobs: [{ name: 'build', stage: 'build' }, { name: 'test', stage: 'test' }] });

  describe('cancel (200 with the pipeline)', () => {
    it('cancels a pending pipeline: created and pending jobs become canceled', async () => {
      const { pipeline } = await twoStages();
      const answer = await call('POST', project, pipeline.id, 'cancel');
      assert.equal(answer.status, 200);
      assert.equal(answer.json.id, pipeline.id);
      assert.equal(answer.json.status, 'canceled');
      assert.ok(answer.json.detailed_status && answer.json.finished_at, 'the detailed pipeline answer');
      assert.deepEqual(await statuses(pipeline.id), ['build:canceled', 'test:canceled']);
    });

    it('keeps finished jobs: {success, canceled} is canceled', async () => {
      const seeded = await fixture.seed(project, { jobs: [{ name: 'a', stage: 'build' }, { name: 'b', stage: 'build' }] });
      for (const name of ['a', 'b']) await move(seeded.jobs[name], 'running');
      await move(seeded.jobs.a, 'success');
      const answer = await call('POST', project, seeded.pipeline.id, 'cancel');
      assert.equal(answer.json.status, 'canceled');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['a:success', 'b:canceled']);
    });

    it('a failed job keeps the pipeline failed: {failed, canceled} is failed', async () => {
      const seeded = await fixture.seed(project, { jobs: [{ name: 'a', stage: 'build' }, { name: 'b', stage: 'build' }] });
      for (const name of ['a', 'b']) await move(seeded.jobs[name], 'running');
      await move(seeded.jobs.a, 'failed');
      const answer = await call('POST', project, seeded.pipeline.id, 'cancel');
      assert.equal(answer.status, 200);
      assert.equal(answer.json.status, 'failed');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['a:failed', 'b:canceled']);
    });

    it('leaves manual jobs alone and cancels scheduled (delayed) ones', async () => {
      const seeded = await fixture.seed(project, {
        jobs: [
          { name: 'work', stage: 'build' },
          { name: 'optional', stage: 'build', when: 'manual', allowFailure: true },
          { name: 'later', stage: 'build', when: 'delayed', startInSeconds: 3600 },
        ],
      });
      await move(seeded.jobs.work, 'running');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['later:scheduled', 'optional:manual', 'work:running']);
      const answer = await call('POST', project, seeded.pipeline.id, 'cancel');
      assert.equal(answer.json.status, 'canceled');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['later:canceled', 'optional:manual', 'work:canceled']);
    });

    it('answers a finished pipeline with 200, unchanged', async () => {
      const seeded = await fixture.seed(project, { jobs: [{ name: 'only', stage: 'build' }] });
      await move(seeded.jobs.only, 'running');
      await move(seeded.jobs.only, 'success');
      const answer = await call('POST', project, seeded.pipeline.id, 'cancel');
      assert.equal(answer.status, 200);
      assert.equal(answer.json.status, 'success');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['only:success']);
    });
  });

  describe('retry (201 with the pipeline)', () => {
    // Spec 02's table gives `pending` after a retry; GitLab's pipeline state machine (reference
    // §5.4, which the processing service follows) moves a finished pipeline that enqueues jobs
    // again to `running`, so `pending` is what a pipeline that had not finished shows.
    it('retries a pipeline that never ran: processed, pending', async () => {
      const { pipeline } = await fixture.seed(project, { jobs: [{ name: 'build', stage: 'build' }], process: false });
      const answer = await call('POST', project, pipeline.id, 'retry');
      assert.equal(answer.status, 201);
      assert.equal(answer.json.status, 'pending');
      assert.deepEqual(await statuses(pipeline.id), ['build:pending']);
    });

    it('retries a failed first stage: a new pending job, the old one retried, skipped jobs back to created; the pipeline running again', async () => {
      const seeded = await twoStages();
      await move(seeded.jobs.build, 'running');
      await move(seeded.jobs.build, 'failed');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['build:failed', 'test:skipped']);
      const answer = await call('POST', project, seeded.pipeline.id, 'retry', fixture.developer.token);
      assert.equal(answer.status, 201);
      assert.equal(answer.json.status, 'running');
      assert.equal(answer.json.finished_at, null);
      assert.equal(answer.json.duration, null);
      assert.deepEqual(await statuses(seeded.pipeline.id), ['build(retried):failed', 'build:pending', 'test:created']);
      const { stores } = fixture.gantry.coordinator.context;
      const clone = (await stores.jobs.list({ pipelineId: seeded.pipeline.id }, { offset: 0, limit: 10 })).items.find((job) => job.name === 'build');
      assert.equal(clone?.user_id, fixture.developer.id, 'the retried job belongs to whoever retried it');
    });

    it('retries a canceled pipeline: its canceled jobs again, the pipeline running', async () => {
      const { pipeline } = await twoStages();
      await call('POST', project, pipeline.id, 'cancel');
      const answer = await call('POST', project, pipeline.id, 'retry');
      assert.equal(answer.status, 201);
      assert.equal(answer.json.status, 'running');
      assert.deepEqual(await statuses(pipeline.id), ['build(retried):canceled', 'build:pending', 'test(retried):canceled', 'test:created']);
    });

    it('retries a failed later stage: the pipeline runs again (§5.4: enqueue from failed is running)', async () => {
      const seeded = await twoStages();
      await move(seeded.jobs.build, 'running');
      await move(seeded.jobs.build, 'success');
      const test = (await fixture.gantry.coordinator.context.stores.jobs.findById(seeded.jobs.test.id))!;
      await move(test, 'running');
      await move(test, 'failed');
      const answer = await call('POST', project, seeded.pipeline.id, 'retry');
      assert.equal(answer.status, 201);
      assert.equal(answer.json.status, 'running');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['build:success', 'test(retried):failed', 'test:pending']);
    });

    it('retries nothing in a successful pipeline, and leaves unplayed manual jobs manual', async () => {
      const seeded = await fixture.seed(project, { jobs: [{ name: 'only', stage: 'build' }, { name: 'deploy', stage: 'deploy', when: 'manual', allowFailure: true }] });
      await move(seeded.jobs.only, 'running');
      await move(seeded.jobs.only, 'success');
      const answer = await call('POST', project, seeded.pipeline.id, 'retry');
      assert.equal(answer.status, 201);
      assert.equal(answer.json.status, 'success');
      assert.deepEqual(await statuses(seeded.pipeline.id), ['deploy:manual', 'only:success']);
    });
  });

  describe('who may retry and cancel', () => {
    it('developers and up; reporters, guests and non-members get 403; anonymous callers 401', async () => {
      const { pipeline } = await twoStages();
      for (const user of [fixture.guest, fixture.reporter, fixture.stranger]) {
        for (const action of ['retry', 'cancel']) {
          const answer = await call('POST', project, pipeline.id, action, user.token);
          assert.equal(answer.status, 403, `${user.username} ${action}`);
          assert.deepEqual(answer.json, { message: '403 Forbidden' });
        }
      }
      assert.equal((await call('POST', project, pipeline.id, 'cancel', null)).status, 401);
      assert.equal((await call('POST', project, pipeline.id, 'retry', null)).status, 401);
      assert.deepEqual(await statuses(pipeline.id), ['build:pending', 'test:created'], 'refused calls change nothing');
      assert.equal((await call('POST', project, pipeline.id, 'cancel', fixture.developer.token)).status, 200);
      assert.equal((await call('POST', project, pipeline.id, 'retry', fixture.maintainer.token)).status, 201);
      assert.equal((await call('POST', project, pipeline.id, 'cancel', fixture.owner.token)).status, 200);
    });

    it('a private project hides its pipelines from non-members (404 Project Not Found)', async () => {
      const hidden = await fixture.project('hidden-actions', { visibility: 'private' });
      const { pipeline } = await fixture.seed(hidden, { jobs: [{ name: 'build', stage: 'build' }] });
      const answer = await call('POST', hidden, pipeline.id, 'cancel', fixture.stranger.token);
      assert.equal(answer.status, 404);
      assert.deepEqual(answer.json, { message: '404 Project Not Found' });
      assert.equal((await call('POST', hidden, pipeline.id, 'cancel', fixture.guest.token)).status, 403);
      assert.equal((await call('POST', hidden, pipeline.id, 'cancel', fixture.developer.token)).status, 200);
    });

    it('protected branches: developers may act only where they may push or merge', async () => {
      const guarded = await fixture.project('guarded');
      const rules = `/projects/${guarded.id}/protected_branches`;
      assert.equal((await fixture.gantry.api('POST', rules, { body: { name: 'main', push_access_level: 40, merge_access_level: 40 } })).status, 201);
      const { pipeline } = await fixture.seed(guarded, { ref: 'main', jobs: [{ name: 'build', stage: 'build' }] });
      for (const action of ['cancel', 'retry']) assert.equal((await call('POST', guarded, pipeline.id, action, fixture.developer.token)).status, 403, action);
      const other = await fixture.seed(guarded, { ref: 'feature', jobs: [{ name: 'build', stage: 'build' }] });
      assert.equal((await call('POST', guarded, other.pipeline.id, 'cancel', fixture.developer.token)).status, 200, 'an unprotected branch');
      assert.equal((await call('POST', guarded, pipeline.id, 'cancel', fixture.maintainer.token)).status, 200);
      // Merging is enough (GitLab's can_update_branch?: push or merge).
      await fixture.gantry.api('DELETE', `${rules}/main`);
      assert.equal((await fixture.gantry.api('POST', rules, { body: { name: 'main', push_access_level: 0, merge_access_level: 30 } })).status, 201);
      assert.equal((await call('POST', guarded, pipeline.id, 'retry', fixture.developer.token)).status, 201);
    });

    it('protected tags: developers may act only where they may create the tag', async () => {
      const tagged = await fixture.project('tagged');
      assert.equal((await fixture.gantry.api('POST', `/projects/${tagged.id}/protected_tags`, { body: { name: 'v*', create_access_level: 40 } })).status, 201);
      const release = await fixture.seed(tagged, { ref: 'v1.0', tag: true, jobs: [{ name: 'build', stage: 'build' }] });
      assert.equal((await call('POST', tagged, release.pipeline.id, 'cancel', fixture.developer.token)).status, 403);
      assert.equal((await call('POST', tagged, release.pipeline.id, 'cancel', fixture.maintainer.token)).status, 200);
      const unprotected = await fixture.seed(tagged, { ref: 'nightly', tag: true, jobs: [{ name: 'build', stage: 'build' }] });
      assert.equal((await call('POST', tagged, unprotected.pipeline.id, 'cancel', fixture.developer.token)).status, 200);
    });

    it('an archived project takes no retries or cancels', async () => {
      const archived = await fixture.project('archived-actions');
      const { pipeline } = await fixture.seed(archived, { jobs: [{ name: 'build', stage: 'build' }] });
      await fixture.gantry.coordinator.context.stores.projects.update(archived.id, { archived: true });
      assert.equal((await call('POST', archived, pipeline.id, 'cancel', fixture.maintainer.token)).status, 403);
      assert.equal((await fixture.gantry.api('GET', `/projects/${archived.id}/pipelines/${pipeline.id}`, { token: fixture.reporter.token })).status, 200, 'still readable');
    });
  });

  describe('delete (owners, 204)', () => {
    it('refuses everyone below owner, and anonymous callers', async () => {
      const { pipeline } = await twoStages();
      for (const user of [fixture.maintainer, fixture.developer, fixture.reporter, fixture.guest, fixture.stranger]) {
        const answer = await call('DELETE', project, pipeline.id, '', user.token);
        assert.equal(answer.status, 403, user.username);
        assert.deepEqual(answer.json, { message: '403 Forbidden' });
      }
      assert.equal((await call('DELETE', project, pipeline.id, '', null)).status, 401);
      assert.ok(await fixture.gantry.coordinator.context.stores.pipelines.findById(pipeline.id));
    });

    it('removes the pipeline with its stages, jobs, variables, artifacts and traces', async () => {
      const { stores, config } = fixture.gantry.coordinator.context;
      const seeded = await twoStages();
      const { pipeline } = seeded;
      const build = seeded.jobs.build;
      await stores.pipelineVariables.add(pipeline.id, [{ key: 'DEPLOY', value: 'yes', variable_type: 'env_var' }]);
      const artifacts = new FileArtifactStore(config.dataDir);
      const file = await artifacts.write({ projectId: project.id, jobId: build.id, fileName: 'artifacts.zip' }, Readable.from([Buffer.from('zip bytes')]), { maxBytes: 1024 });
      await stores.jobArtifacts.save({
        job_id: build.id, project_id: project.id, file_type: 'archive', file_format: 'zip', file_name: 'artifacts.zip', size: file.size, sha256: file.sha256,
        path: file.path, expire_at: null, created_at: new Date().toISOString(),
      });
      await new FileTraceStore(config.dataDir).append(build.id, 0, Buffer.from('log line\n'));
      await stores.traceChunks.append(build.id, 0, Buffer.from('log line\n'));
      const artifactFile = path.join(config.dataDir, file.path);
      const traceFile = path.join(config.dataDir, 'traces', `${build.id}.log`);
      assert.ok(existsSync(artifactFile) && existsSync(traceFile));

      const answer = await call('DELETE', project, pipeline.id, '', fixture.owner.token);
      assert.equal(answer.status, 204);
      assert.equal(answer.text, '');
      assert.equal(await stores.pipelines.findById(pipeline.id), undefined);
      assert.deepEqual(await stores.stages.listForPipeline(pipeline.id), []);
      assert.deepEqual(await stores.pipelineVariables.list(pipeline.id), []);
      assert.deepEqual(await stores.jobs.findByIds(Object.values(seeded.jobs).map((job) => job.id)), []);
      assert.deepEqual(await stores.jobArtifacts.listForJobs([build.id]), []);
      assert.equal(await stores.traceChunks.size(build.id), 0);
      assert.equal(existsSync(artifactFile), false, 'the artifact file is removed');
      assert.equal(existsSync(traceFile), false, 'the trace file is removed');
      const again = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines/${pipeline.id}`);
      assert.deepEqual([again.status, again.json], [404, { message: '404 Not found' }]);
      assert.equal((await call('DELETE', project, pipeline.id, '', fixture.owner.token)).status, 404);
    });

    it('administrators delete too', async () => {
      const { pipeline } = await twoStages();
      assert.equal((await call('DELETE', project, pipeline.id, '')).status, 204);
    });
  });
});
