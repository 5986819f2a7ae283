import type { TestCoordinator } from '../helpers/coordinator.ts';
import type { MergeRequestRecord } from '../../src/storage/types-merge-requests.ts';

let branchCounter = 0;

/**
 * An open merge request written straight to the store, each from a branch of its own (the
 * create route belongs to the merge request CRUD; the activity tests need only the row).
 */
export async function storeMergeRequest(gantry: TestCoordinator, projectId: number, authorId: number, fields: { title?: string; description?: string | null; assigneeIds?: number[]; reviewerIds?: number[] } = {}): Promise<MergeRequestRecord> {
  branchCounter += 1;
  const now = new Date().toISOString();
  return gantry.coordinator.context.stores.mergeRequests.create(
    {
      project_id: projectId,
      source_project_id: projectId,
      source_branch: `feature-${branchCounter}`,
      target_branch: 'main',
      author_id: authorId,
      title: fields.title ?? `Change ${branchCounter}`,
      description: fields.description ?? null,
      state: 'opened',
      created_at: now,
    },
    { assigneeIds: fields.assigneeIds ?? [], reviewerIds: fields.reviewerIds ?? [] },
  );
}
