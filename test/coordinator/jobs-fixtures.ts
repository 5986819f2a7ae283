import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import type { ProjectRecord, Visibility } from '../../src/storage/types.ts';
import { appendTrace, storeArtifacts } from '../helpers/ci-blobs.ts';
import { seedPipeline, type SeedJob, type SeededPipeline } from '../helpers/ci-pipelines.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

export interface JobsFixture extends RepositoryFixture {
  maintainer: TestUser;
  /** A project with README.md on main; developer/reporter/guest/maintainer are members. */
  ciProject(path: string, options?: { visibility?: Visibility }): Promise<ProjectRecord & { full_path: string; head: string }>;
  /** A pipeline of `jobs` on the project's head commit (ref main unless given), processed. */
  pipeline(project: ProjectRecord & { head: string }, jobs: SeedJob[], options?: { ref?: string; userId?: number; tag?: boolean }): Promise<SeededPipeline>;
  /** Stores a zip of `files` as the job's artifacts archive, with its member records, as the runner upload will. */
  artifacts(job: JobRecord, files: Record<string, string>, options?: { expireAt?: string | null }): Promise<void>;
  /** Appends `text` to the job's trace through the trace store. */
  trace(job: JobRecord, text: string): Promise<void>;
}

let counter = 0;

export async function startJobsFixture(options: Parameters<typeof startRepositoryFixture>[0] = {}): Promise<JobsFixture> {
  const fixture = await startRepositoryFixture(options);
  const { gantry } = fixture;
  counter += 1;
  const maintainer = await makeUser(gantry, `maint${counter}`);
  return {
    ...fixture,
    maintainer,
    async ciProject(path, options = {}) {
      const project = await fixture.project(path, { visibility: options.visibility ?? 'public', withReadme: true });
      await addMember(gantry, { type: 'project', id: project.id }, maintainer.id, 40);
      const head = await gantry.api('GET', `/projects/${project.id}/repository/commits/main`);
      return { ...project, head: head.json.id as string };
    },
    pipeline(project, jobs, options = {}) {
      return seedPipeline(gantry.coordinator, { projectId: project.id, sha: project.head, ref: options.ref ?? 'main', tag: options.tag, userId: options.userId ?? null, jobs });
    },
    artifacts(job, files, options = {}) {
      return storeArtifacts(gantry.coordinator, job, files, options.expireAt ?? null);
    },
    trace(job, text) {
      return appendTrace(gantry.coordinator, job, text);
    },
  };
}
