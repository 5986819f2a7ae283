/**
 * A runner's side of running jobs, for the job update and trace tests: a project with a
 * pending job, a runner registered through the store, and the job claimed from the real
 * queue with a fresh job token (until POST /jobs/request hands them out).
 */
import type { AddressInfo } from 'node:net';
import type { CoordinatorOptions } from '../../src/coordinator/app.ts';
import { jobTokenDigest, newJobToken } from '../../src/coordinator/services/ci/runners/job-tokens.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import type { ProjectRecord, Visibility } from '../../src/storage/types.ts';
import type { RunnerRecord } from '../../src/storage/types-runners.ts';
import { addMember, makeProjectWithRepository, makeUser, type TestUser } from '../coordinator/groups-fixtures.ts';
import { seedPipeline, type SeedJob, type SeededPipeline } from './ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from './coordinator.ts';

export interface RunnerJobsFixture {
  gantry: TestCoordinator;
  /** http://127.0.0.1:<port>/api/v4 */
  apiUrl: string;
  baseUrl: string;
  developer: TestUser;
  runner: RunnerRecord;
  project(path: string, options?: { visibility?: Visibility }): Promise<ProjectRecord>;
  pipeline(project: ProjectRecord, jobs: SeedJob[]): Promise<SeededPipeline>;
  /**
   * Claims the oldest pending job a runner may take (the shared runner, or with `project` a
   * runner of that project alone); its token as the runner would receive it.
   */
  claim(project?: ProjectRecord, options?: { maximumTimeout?: number; cancelGracefully?: boolean }): Promise<{ job: JobRecord; token: string; runner: RunnerRecord }>;
  job(id: number): Promise<JobRecord>;
  close(): Promise<void>;
}

let counter = 0;

export async function startRunnerJobsFixture(extra: Partial<CoordinatorOptions> = {}): Promise<RunnerJobsFixture> {
  const gantry = await startTestCoordinator({ extra });
  const { context } = gantry.coordinator;
  const address = await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  const port = (gantry.coordinator.app.server.address() as AddressInfo).port;
  const baseUrl = address.startsWith('http') ? `http://127.0.0.1:${port}` : address;
  counter += 1;
  const developer = await makeUser(gantry, `rjdev${counter}`);
  const now = new Date().toISOString();
  const runner = await context.stores.runners.create({ runner_type: 'instance_type', created_at: now, run_untagged: true, description: 'test runner' }, `runner-token-${counter}-${Date.now()}`);
  const claim: RunnerJobsFixture['claim'] = async (project, options = {}) => {
    counter += 1;
    const who = project
      ? await context.stores.runners.create(
          { runner_type: 'project_type', created_at: new Date().toISOString(), run_untagged: true, maximum_timeout: options.maximumTimeout ?? null },
          `project-runner-${counter}-${Date.now()}`,
          { projectIds: [project.id] },
        )
      : runner;
    const token = newJobToken();
    const job = (await context.stores.ciTransactions.run((stores) => stores.jobQueue.claim(who, { now: new Date().toISOString(), tokenDigest: jobTokenDigest(token), cancelGracefully: options.cancelGracefully })))?.job;
    if (!job) throw new Error('no pending job to claim');
    return { job, token, runner: who };
  };
  return {
    gantry,
    baseUrl,
    apiUrl: `${baseUrl}/api/v4`,
    developer,
    runner,
    async project(path, options = {}) {
      const project = await makeProjectWithRepository(gantry, 1, path, { visibility: options.visibility ?? 'private', withReadme: true });
      await addMember(gantry, { type: 'project', id: project.id }, developer.id, 30);
      return project;
    },
    async pipeline(project, jobs) {
      return seedPipeline(gantry.coordinator, { projectId: project.id, ref: 'main', userId: developer.id, jobs });
    },
    claim,
    async job(id) {
      const job = await context.stores.jobs.findById(id);
      if (!job) throw new Error(`job ${id} is gone`);
      return job;
    },
    close: () => gantry.close(),
  };
}
