import type { RepositoryAccess } from './reader.ts';
import { runGit } from './run.ts';

/**
 * GitLab's persistent pipeline ref: `refs/pipelines/<id>` keeps a pipeline's commit fetchable
 * (and out of reach of gc) while the pipeline runs, whatever happens to its branch or tag
 * meanwhile. Pushes cannot write it (hooks.ts hides it from receive-pack); fetches see it.
 */
export function pipelineRef(pipelineId: number): string {
  return `refs/pipelines/${pipelineId}`;
}

const COMMIT_ID = /^[0-9a-f]{40}$/;

function checkedRef(pipelineId: number): string {
  if (!Number.isSafeInteger(pipelineId) || pipelineId < 1) throw new Error(`invalid pipeline id ${pipelineId}`);
  return pipelineRef(pipelineId);
}

/** Points `refs/pipelines/<id>` at commit `sha` (created, or moved back where it belongs): one update-ref. */
export async function setPipelineRef(access: RepositoryAccess, pipelineId: number, sha: string): Promise<void> {
  const ref = checkedRef(pipelineId);
  if (!COMMIT_ID.test(sha)) throw new Error(`invalid pipeline commit ${sha}`);
  await runGit(access.gitDir, ['update-ref', '-m', 'gantry: pipeline ref', ref, sha]);
}

/** Removes `refs/pipelines/<id>`; a ref already gone is not an error. */
export async function deletePipelineRef(access: RepositoryAccess, pipelineId: number): Promise<void> {
  const ref = checkedRef(pipelineId);
  await runGit(access.gitDir, ['update-ref', '-m', 'gantry: pipeline ref', '-d', ref]);
}
