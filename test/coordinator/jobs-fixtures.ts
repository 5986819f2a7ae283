import { Readable } from 'node:stream';
import yazl from 'yazl';
import { ciBlobStores } from '../../src/coordinator/wiring-ci.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import type { ProjectRecord, Visibility } from '../../src/storage/types.ts';
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

export async function startJobsFixture(): Promise<JobsFixture> {
  const fixture = await startRepositoryFixture();
  const { gantry } = fixture;
  counter += 1;
  const maintainer = await makeUser(gantry, `maint${counter}`);
  const blobs = ciBlobStores(gantry.coordinator.context);
  const { stores } = gantry.coordinator.context;
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
    async artifacts(job, files, options = {}) {
      const zip = new yazl.ZipFile();
      for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
      zip.end();
      const stored = await blobs.artifactFiles.write({ projectId: job.project_id, jobId: job.id, fileName: 'artifacts.zip' }, Readable.from(zip.outputStream), { maxBytes: 10_000_000 });
      const members = await blobs.artifactFiles.listZipMembers(stored.path);
      const expireAt = options.expireAt === undefined ? null : options.expireAt;
      await stores.jobArtifacts.save(
        { job_id: job.id, project_id: job.project_id, file_type: 'archive', file_format: 'zip', file_name: 'artifacts.zip', size: stored.size, sha256: stored.sha256, path: stored.path, expire_at: expireAt, created_at: new Date().toISOString() },
        members.filter((member) => member.kind !== 'unsafe').map((member) => ({
          path: member.path, kind: member.kind === 'directory' ? 'directory' : 'file', size: member.size, compressed_size: member.compressedSize, crc32: member.crc32, mode: member.mode, modified_at: member.modifiedAt,
        })),
      );
      await stores.jobs.update(job.id, { artifacts_expire_at: expireAt });
    },
    async trace(job, text) {
      const offset = await blobs.traces.size(job.id);
      await blobs.traces.append(job.id, offset, Buffer.from(text));
    },
  };
}
