import type { JobArtifactRecord, JobRecord } from '../../../../storage/types-ci-jobs.ts';

/** The archive a job serves: present, not expired and the job not erased; else undefined. */
export function availableArchive(job: Pick<JobRecord, 'erased_at'>, archive: JobArtifactRecord | undefined, now: string): JobArtifactRecord | undefined {
  if (!archive || job.erased_at !== null) return undefined;
  if (archive.expire_at !== null && archive.expire_at <= now) return undefined;
  return archive;
}

/**
 * GitLab's `Artifacts::Path#valid?`: a member path may not be empty, absolute, hold a NUL
 * byte or a backslash, or climb with `..` (also percent-encoded once more).
 */
export function isValidArtifactPath(path: string): boolean {
  if (path === '' || path.includes('\0') || path.includes('\\') || path.startsWith('/')) return false;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  return ![path, decoded].some((candidate) => candidate.split('/').includes('..') || candidate.includes('\0'));
}
