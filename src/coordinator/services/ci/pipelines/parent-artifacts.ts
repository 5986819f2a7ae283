import type { ArtifactFileResult } from '../../../../ci/model.ts';
import type { CiJobsStore, JobArtifactsStore } from '../../../../storage/types-ci-jobs.ts';
import type { ArchiveMembers } from './archive-members.ts';

/** Configuration files are small; a bigger member is not read (the compiler refuses far less). */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

export interface ParentArtifactsDeps {
  jobs: Pick<CiJobsStore, 'list'>;
  jobArtifacts: Pick<JobArtifactsStore, 'find' | 'findEntry'>;
  members: Pick<ArchiveMembers, 'find' | 'open'>;
}

/**
 * `include: - artifact: <path>, job: <name>` of a child pipeline's trigger: a file from the
 * archive of the parent pipeline's newest (not retried) build of that name, read through the
 * archive's member index (unsafe members are not in it) and one member inflated, never the
 * whole archive.
 */
export class ParentArtifacts {
  constructor(private readonly deps: ParentArtifactsDeps) {}

  async read(parentPipelineId: number, jobName: string, path: string): Promise<ArtifactFileResult> {
    const { items } = await this.deps.jobs.list({ pipelineId: parentPipelineId, types: ['build'], sort: 'desc' }, { offset: 0, limit: 1000 });
    const job = items.find((candidate) => candidate.name === jobName);
    const archive = job && (await this.deps.jobArtifacts.find(job.id, 'archive'));
    if (!archive || (archive.expire_at !== null && Date.parse(archive.expire_at) <= Date.now())) return { status: 'job-not-found' };
    const member = path.replace(/^\.?\/+/, '');
    const entry = await this.deps.members.find(archive, member);
    if (!entry) return (await this.deps.jobArtifacts.findEntry(archive.id, `${member}/`)) ? { status: 'not-a-file' } : { status: 'file-not-found' };
    if (entry.kind === 'directory') return { status: 'not-a-file' };
    if (entry.size > MAX_CONFIG_BYTES) return { status: 'file-not-found' };
    const opened = await this.deps.members.open(archive, entry);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of opened.stream) {
      const bytes = chunk as Buffer;
      size += bytes.length;
      if (size > MAX_CONFIG_BYTES) {
        opened.stream.destroy();
        return { status: 'file-not-found' };
      }
      chunks.push(bytes);
    }
    return { status: 'found', content: Buffer.concat(chunks).toString('utf8') };
  }
}
