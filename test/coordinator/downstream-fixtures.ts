/**
 * A coordinator (task worker polling fast) with a public group, helpers to commit CI files
 * through the commits API (each commit is a push: it gets a push pipeline) and to wait for
 * pipelines, bridges and their downstream pipelines.
 */
import assert from 'node:assert/strict';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { TasksStore } from '../../src/storage/types-tasks.ts';
import { moveJob } from '../helpers/ci-pipelines.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup } from './groups-fixtures.ts';

export interface DownstreamFixture {
  gantry: TestCoordinator;
  groupPath: string;
  groupId: number;
  project(path: string, visibility?: 'public' | 'private'): Promise<{ id: number; path: string }>;
  /** Commits the files on `branch` (made from main when new) as root: a push. Answers the sha. */
  commit(projectId: number, branch: string, files: Record<string, string>): Promise<string>;
  /** The push pipeline of the sha on the ref (children share both). */
  pushPipeline(projectId: number, sha: string, ref: string): Promise<PipelineRecord>;
  jobs(pipelineId: number): Promise<Record<string, JobRecord>>;
  pipeline(id: number): Promise<PipelineRecord>;
  /** Waits until the job named `name` of the pipeline satisfies `ok`. */
  jobWhen(pipelineId: number, name: string, ok: (job: JobRecord) => boolean, what: string): Promise<JobRecord>;
  pipelineWhen(id: number, ok: (pipeline: PipelineRecord) => boolean, what: string): Promise<PipelineRecord>;
  downstreamOf(bridge: JobRecord): Promise<PipelineRecord>;
  /** Runs a job to `success` or `failed` as a runner would. */
  finish(job: JobRecord, status: 'success' | 'failed'): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;

export async function waitFor<T>(read: () => Promise<T | undefined>, what: string, tasks?: TasksStore): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  const counts = tasks ? JSON.stringify(await tasks.counts(new Date().toISOString())) : '';
  throw new Error(`timed out waiting for ${what} ${counts}`);
}

export async function startDownstreamFixture(options: { runTasks?: boolean } = {}): Promise<DownstreamFixture> {
  const gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 30, runTasks: options.runTasks ?? true } } });
  const { stores } = gantry.coordinator.context;
  await gantry.coordinator.context.settings.update({ default_branch_protection: 0 });
  counter += 1;
  const group = await makeGroup(gantry, `flow${counter}`, { visibility: 'public' });
  const jobs = async (pipelineId: number): Promise<Record<string, JobRecord>> => {
    const { items } = await stores.jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 100 });
    return Object.fromEntries(items.map((job) => [job.name, job]));
  };
  const fixture: DownstreamFixture = {
    gantry,
    groupPath: group.full_path,
    groupId: group.id,
    async project(path, visibility = 'public') {
      const created = await gantry.api('POST', '/projects', { body: { name: path, path, namespace_id: group.id, initialize_with_readme: true, visibility } });
      assert.equal(created.status, 201, created.text);
      return { id: created.json.id as number, path: `${group.full_path}/${path}` };
    },
    async commit(projectId, branch, files) {
      const exists = (await gantry.api('GET', `/projects/${projectId}/repository/branches/${encodeURIComponent(branch)}`)).status === 200;
      const base = exists ? branch : 'main';
      const tree = (await gantry.api('GET', `/projects/${projectId}/repository/tree?ref=${encodeURIComponent(base)}&recursive=true&per_page=100`)).list;
      const present = new Set(tree.map((entry) => entry.path));
      const actions = Object.entries(files).map(([filePath, content]) => ({ action: present.has(filePath) ? 'update' : 'create', file_path: filePath, content }));
      const body = { branch, commit_message: `ci for ${branch}`, actions, ...(exists ? {} : { start_branch: 'main' }) };
      const answer = await gantry.api('POST', `/projects/${projectId}/repository/commits`, { body, token: ROOT_TOKEN });
      assert.equal(answer.status, 201, answer.text);
      return answer.json.id as string;
    },
    // Not `latestFor`: a child pipeline at the same sha and ref may already be newer.
    pushPipeline: (projectId, sha, ref) => waitFor(
      async () => (await stores.pipelines.list({ projectId, sha, ref, source: 'push' }, { offset: 0, limit: 1 })).items[0],
      `the push pipeline of ${ref}`,
      stores.tasks,
    ),
    jobs,
    async pipeline(id) {
      const found = await stores.pipelines.findById(id);
      assert.ok(found, `pipeline ${id}`);
      return found;
    },
    jobWhen: (pipelineId, name, ok, what) => waitFor(async () => {
      const job = (await jobs(pipelineId))[name];
      return job && ok(job) ? job : undefined;
    }, `${name}: ${what}`, stores.tasks),
    pipelineWhen: (id, ok, what) => waitFor(async () => {
      const pipeline = await stores.pipelines.findById(id);
      return pipeline && ok(pipeline) ? pipeline : undefined;
    }, `pipeline ${id}: ${what}`, stores.tasks),
    downstreamOf: (bridge) => waitFor(async () => (await stores.pipelines.listBySourceJobs([bridge.id]))[0], `the downstream pipeline of ${bridge.name}`, stores.tasks),
    async finish(job, status) {
      await moveJob(gantry.coordinator, job, 'running');
      await moveJob(gantry.coordinator, job, status, status === 'failed' ? 'script_failure' : undefined);
    },
    close: () => gantry.close(),
  };
  return fixture;
}
