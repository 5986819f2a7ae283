import type { UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { MilestonesStore } from '../../../../storage/types-planning.ts';
import { assigneeChange, labelChange, milestoneReference, sentence, titleChange } from '../issue-system-notes.ts';
import type { SystemNotes } from '../system-notes.ts';
import { draftlessTitle, isDraftTitle } from './drafts.ts';
import type { MergeRequestMerged, MergeRequestObserver, MergeRequestRefreshed, MergeRequestSaved, MergeRequestSnapshot } from './observers.ts';

export interface MergeRequestSystemNotesDeps {
  systemNotes: Pick<SystemNotes, 'add'>;
  users: Pick<UsersStore, 'findByIds'>;
  milestones: Pick<MilestonesStore, 'findById'>;
}

/**
 * System notes for merge requests, worded as GitLab's SystemNotes services (IssuablesService,
 * MergeRequestsService) word them: one note per change of an update (a new request gets none),
 * `merged` on a merge, and the automatic-merge notes the merge service asks for.
 */
export class MergeRequestSystemNotes implements MergeRequestObserver {
  constructor(private readonly deps: MergeRequestSystemNotesDeps) {}

  async mergeRequestSaved({ before, after, actor, at }: MergeRequestSaved): Promise<void> {
    if (!before) return;
    for (const body of await this.changeNotes(before, after)) await this.add(after.record, actor, body, at);
  }

  /**
   * A push added commits to the source: GitLab's SystemNotes::CommitService#add_commits,
   * `added 2 commits` and the list of them (`<short id> - <title>`, oldest first), by the pusher.
   */
  async mergeRequestRefreshed({ mergeRequest, actor, addedCommits }: MergeRequestRefreshed): Promise<void> {
    if (!addedCommits || addedCommits.length === 0 || !actor) return;
    const count = addedCommits.length;
    const items = [...addedCommits].reverse().map((commit) => `<li>${commit.id.slice(0, 8)} - ${escapeHtml(commit.title)}</li>`);
    await this.add(mergeRequest, actor, `added ${count} commit${count === 1 ? '' : 's'}\n\n<ul>${items.join('')}</ul>`);
  }

  async mergeRequestMerged({ mergeRequest, actor, at }: MergeRequestMerged): Promise<void> {
    await this.add(mergeRequest, actor, 'merged', at);
  }

  /** `merge_when_pipeline_succeeds` set: the note of SystemNoteService.merge_when_pipeline_succeeds. */
  async autoMergeEnabled(mergeRequest: MergeRequestRecord, actor: UserRecord, sha: string, at?: string): Promise<void> {
    await this.add(mergeRequest, actor, `enabled an automatic merge when the pipeline for ${sha} succeeds`, at);
  }

  /** The automatic merge called off (by a person, or because the pipeline failed). */
  async autoMergeCanceled(mergeRequest: MergeRequestRecord, actor: UserRecord, at?: string): Promise<void> {
    await this.add(mergeRequest, actor, 'canceled the automatic merge', at);
  }

  /** The bodies for a change from `before` to `after`, in the order GitLab's update service writes them. */
  async changeNotes(before: MergeRequestSnapshot, after: MergeRequestSnapshot): Promise<string[]> {
    const [was, now] = [before.record, after.record];
    const bodies: string[] = [];
    if (was.state !== now.state && (now.state === 'closed' || now.state === 'opened')) bodies.push(now.state === 'closed' ? 'closed' : 'reopened');
    if (isDraftTitle(was.title) !== isDraftTitle(now.title)) bodies.push(`marked this merge request as **${isDraftTitle(now.title) ? 'draft' : 'ready'}**`);
    if (draftlessTitle(was.title) !== draftlessTitle(now.title)) bodies.push(titleChange(was.title, now.title));
    if ((was.description ?? '') !== (now.description ?? '')) bodies.push('changed the description');
    if (Boolean(was.discussion_locked) !== Boolean(now.discussion_locked)) bodies.push(`${now.discussion_locked ? 'locked' : 'unlocked'} the discussion in this merge request`);
    if (was.target_branch !== now.target_branch) bodies.push(`changed target branch from \`${was.target_branch}\` to \`${now.target_branch}\``);
    if (was.milestone_id !== now.milestone_id) {
      const milestone = now.milestone_id === null ? undefined : await this.deps.milestones.findById(now.milestone_id);
      bodies.push(milestone ? `changed milestone to ${milestoneReference(milestone)}` : 'removed milestone');
    }
    const labels = labelChange(before.labels.map((label) => label.id), after.labels.map((label) => label.id));
    if (labels) bodies.push(labels);
    const users = await this.usersOf([before.assigneeIds, after.assigneeIds, before.reviewerIds, after.reviewerIds].flat());
    const pick = (ids: readonly number[]) => ids.flatMap((id) => users.get(id) ?? []);
    const assignees = assigneeChange(pick(before.assigneeIds), pick(after.assigneeIds));
    if (assignees) bodies.push(assignees);
    const reviewers = reviewerChange(pick(before.reviewerIds), pick(after.reviewerIds));
    if (reviewers) bodies.push(reviewers);
    return bodies;
  }

  private async usersOf(ids: readonly number[]): Promise<Map<number, UserRecord>> {
    const wanted = [...new Set(ids)];
    return new Map((wanted.length ? await this.deps.users.findByIds(wanted) : []).map((user) => [user.id, user]));
  }

  private async add(mergeRequest: MergeRequestRecord, actor: UserRecord, body: string, at?: string): Promise<void> {
    await this.deps.systemNotes.add({ type: 'MergeRequest', id: mergeRequest.id, project_id: mergeRequest.project_id }, actor.id, body, at);
  }
}

/** `requested review from @a`, `removed review request for @b`, both joined by `and`. */
export function reviewerChange(before: readonly UserRecord[], after: readonly UserRecord[]): string | undefined {
  const added = after.filter((user) => !before.some((old) => old.id === user.id));
  const removed = before.filter((user) => !after.some((now) => now.id === user.id));
  const refs = (users: UserRecord[]) => sentence(users.map((user) => `@${user.username}`));
  const parts = [...(added.length ? [`requested review from ${refs(added)}`] : []), ...(removed.length ? [`removed review request for ${refs(removed)}`] : [])];
  return parts.length ? parts.join(' and ') : undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
