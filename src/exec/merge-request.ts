/**
 * `runner exec --source merge_request_event`: the pipeline of a merge request from the run's
 * branch into the default branch, as GitLab runs it — on `refs/merge-requests/<iid>/head`, with
 * the `CI_MERGE_REQUEST_*` variables, `rules:changes` matching the request's diff. The request
 * is opened in the local coordinator; its diff is yours: from the merge base of your target
 * branch (origin's copy, else your own) and HEAD to the snapshot.
 */
import type { PipelineCreationInput } from '../coordinator/services/ci/pipelines/creation.ts';
import type { ProjectRecord } from '../storage/types.ts';
import { ExecError } from './errors.ts';
import { resolveUserCommit, type HeadInfo } from './git.ts';
import type { LocalCoordinator } from './session.ts';

export interface MergeRequestRun {
  root: string;
  head: HeadInfo;
  /** The snapshot's commit: the request's head. */
  sha: string;
  ref: { name: string; kind: 'branch' | 'tag' };
}

/** The creation input of the request's pipeline, from that of the branch's. */
export async function mergeRequestInput(local: LocalCoordinator, project: ProjectRecord, branchInput: PipelineCreationInput, run: MergeRequestRun): Promise<PipelineCreationInput> {
  if (run.ref.kind === 'tag') throw new ExecError('--source merge_request_event: a merge request has a source branch, not a tag (--tag)');
  const { name: target, tip: targetTip } = await targetBranch(run);
  const { stores, repositories } = local.coordinator.context;
  const repository = repositories.open(project.id);
  // The project's repository reads your commits through the objects it borrows.
  const base = run.head.sha === null ? null : await repository.mergeBase(targetTip, run.head.sha);
  const request = await stores.mergeRequests.create(
    {
      project_id: project.id,
      source_project_id: project.id,
      source_branch: run.ref.name,
      target_branch: target,
      author_id: local.root.id,
      title: run.head.message.split('\n')[0]?.trim() || run.ref.name,
      description: null,
      state: 'opened',
      head_sha: run.sha,
      start_sha: targetTip,
      base_sha: base,
      created_at: new Date().toISOString(),
    },
    {},
  );
  await repository.setMergeRequestHead(request.iid, run.sha);
  // Its `changedPaths` are the request's diff, from base_sha (taken with HEAD: the snapshot has no parent) to the snapshot.
  return { ...branchInput, ...(await local.ci.mergeRequestPipelines.inputFor(project, request, branchInput.user)) };
}

/**
 * The request's target: the default branch (origin's), else `main`, else `master` — the first
 * that is not the run's branch and that your repository has (origin's copy first, whose tip
 * the request's diff starts from, as the server's branch would).
 */
async function targetBranch(run: MergeRequestRun): Promise<{ name: string; tip: string }> {
  for (const name of new Set([run.head.defaultBranch, 'main', 'master'])) {
    if (name === run.ref.name) continue;
    const tip = (await resolveUserCommit(run.root, `refs/remotes/origin/${name}`)) ?? (await resolveUserCommit(run.root, `refs/heads/${name}`));
    if (tip !== null) return { name, tip };
  }
  throw new ExecError(`--source merge_request_event: no branch to merge ${run.ref.name} into (the default branch, main or master); run it on another branch (--ref)`);
}
