/**
 * The local runner carries the tags of the run's jobs. The queue hands a tagged job only to a
 * runner that has every one of its tags (GitLab's matching); `runner exec`'s one runner
 * registers untagged, so a job with `tags:` would wait for a runner that never comes. As the
 * jobs are created (the pipeline's, then each child pipeline's), their tags are added to the
 * runner's: every job of the run is the local runner's to take, whatever its tags.
 */
import type { LocalCoordinator } from './session.ts';

export interface RunnerTags {
  /** Adds the tags of these jobs the runner lacks (one update when there are some). */
  cover(jobs: readonly { tag_list: readonly string[] }[]): Promise<void>;
}

export async function runnerTags(local: LocalCoordinator, token: string): Promise<RunnerTags> {
  const runners = local.coordinator.context.stores.runners;
  const runner = await runners.findByToken(token);
  if (!runner) throw new Error('runner exec: its runner is not registered');
  const carried = new Set(runner.tag_list);
  return {
    async cover(jobs) {
      const missing = jobs.flatMap((job) => job.tag_list).filter((tag) => !carried.has(tag));
      if (missing.length === 0) return;
      for (const tag of missing) carried.add(tag);
      await runners.update(runner.id, { tag_list: [...carried] });
    },
  };
}
