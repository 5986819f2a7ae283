import type { JobChange, JobId, JobPatch, PipelineJob } from './types.ts';

/**
 * Applies changes from `handleEvent` to plain jobs: updates are merged into their job,
 * creations are appended. Returns a new array; the input is not mutated. O(jobs + changes).
 */
export function applyChanges(jobs: readonly PipelineJob[], changes: readonly JobChange[]): PipelineJob[] {
  const patches = new Map<JobId, JobPatch>();
  const created: PipelineJob[] = [];
  for (const change of changes) {
    if (change.kind === 'create') created.push(change.job);
    else patches.set(change.jobId, { ...patches.get(change.jobId), ...change.patch });
  }
  const updated = jobs.map((job) => {
    const patch = patches.get(job.id);
    return patch ? { ...job, ...patch } : job;
  });
  return [...updated, ...created];
}
