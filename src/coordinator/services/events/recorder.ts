import type { Logger } from '../../../shared/logger.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { UserRecord, UsersStore } from '../../../storage/types.ts';
import type { EventAction, EventPushData, EventsStore, NewEvent } from '../../../storage/types-events.ts';
import type { NoteRecord } from '../../../storage/types-notes.ts';
import type { PushEvent, SystemEvent } from '../events.ts';
import type { IssueObserver, IssueSaved, NoteWritten } from '../planning/issue-observers.ts';
import type { MergeRequestMerged, MergeRequestObserver, MergeRequestSaved } from '../planning/merge-requests/observers.ts';
import type { MergeRequestNoteObserver, MergeRequestNoteWritten } from '../planning/noteables.ts';
import type { UserActivity } from '../accounts/user-activity.ts';

const ZERO_SHA = '0'.repeat(40);
/** A push's commit count is read from git up to this many (GitLab's push data lists at most 100 too). */
export const PUSH_COMMITS_COUNTED = 100;

export interface ActivityRecorderDeps {
  events: Pick<EventsStore, 'record'>;
  users: Pick<UsersStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'open'>;
  activity: Pick<UserActivity, 'touched'>;
  logger: Logger;
  now?: () => Date;
}

/**
 * Records GitLab's activity events as they happen (`/events`), as an observer of the issue,
 * merge request and note services and a listener of pushes: one insert per change (per push,
 * not per commit), after the change is stored. Events of confidential issues and internal notes
 * are marked so; the feeds show them only to who may see them. A failure to record is logged,
 * never fails the change.
 */
export class ActivityRecorder implements IssueObserver, MergeRequestObserver, MergeRequestNoteObserver {
  constructor(private readonly deps: ActivityRecorderDeps) {}

  async issueSaved({ project, actor, before, after }: IssueSaved): Promise<void> {
    const issue = after.issue;
    const action = stateAction(before?.issue.state ?? null, issue.state);
    if (!action) return;
    await this.record({ project_id: project.id, author_id: actor.id, action, target_type: 'Issue', target_id: issue.id, target_iid: issue.iid, target_title: issue.title, confidential: issue.confidential });
  }

  async noteWritten({ project, actor, issue, note }: NoteWritten): Promise<void> {
    await this.recordNote(project.id, actor, note, { type: 'Issue', iid: issue.issue.iid, title: issue.issue.title }, issue.issue.confidential);
  }

  async mergeRequestNoteWritten({ project, actor, mergeRequest, note }: MergeRequestNoteWritten): Promise<void> {
    await this.recordNote(project.id, actor, note, { type: 'MergeRequest', iid: mergeRequest.iid, title: mergeRequest.title });
  }

  async mergeRequestSaved({ project, actor, before, after }: MergeRequestSaved): Promise<void> {
    const request = after.record;
    const action = stateAction(before?.record.state ?? null, request.state);
    if (!action) return;
    await this.record({ project_id: project.id, author_id: actor.id, action, target_type: 'MergeRequest', target_id: request.id, target_iid: request.iid, target_title: request.title });
  }

  async mergeRequestMerged({ project, actor, mergeRequest }: MergeRequestMerged): Promise<void> {
    await this.record({ project_id: project.id, author_id: actor.id, action: 'merged', target_type: 'MergeRequest', target_id: mergeRequest.id, target_iid: mergeRequest.iid, target_title: mergeRequest.title });
  }

  /**
   * GitLab's project events among the system events: `created` (the creator, no target) when a
   * project is created or forked, `joined`/`left` (the member) when a project membership is
   * added or removed. Group memberships have no project and make no event, as in GitLab.
   */
  async systemEvent(event: SystemEvent): Promise<void> {
    if (event.name === 'project_create' && event.creator) await this.record(this.base(event.project.id, event.creator.id, 'created'));
    else if (event.name === 'user_add_to_team') await this.record(this.base(event.project.id, event.user.id, 'joined'));
    else if (event.name === 'user_remove_from_team') await this.record(this.base(event.project.id, event.user.id, 'left'));
  }

  /** One "pushed to/new/deleted" event per updated branch or tag; heard after the push is acknowledged. */
  async pushed(push: PushEvent): Promise<void> {
    if (push.user_id === null) return;
    const tag = push.ref.startsWith('refs/tags/');
    if (!tag && !push.ref.startsWith('refs/heads/')) return;
    try {
      const pushData = await this.pushData(push, tag);
      await this.deps.events.record({ ...this.base(push.project_id, push.user_id, 'pushed'), push_data: pushData });
      const pusher = await this.deps.users.findById(push.user_id);
      if (pusher) await this.deps.activity.touched(pusher);
    } catch (error) {
      this.deps.logger.warn({ err: error, project: push.project_id, ref: push.ref }, 'events: recording the push failed');
    }
  }

  private async pushData(push: PushEvent, tag: boolean): Promise<EventPushData> {
    const created = push.before === ZERO_SHA;
    const removed = push.after === ZERO_SHA;
    const name = push.ref.slice(tag ? 'refs/tags/'.length : 'refs/heads/'.length);
    let commitCount = 0;
    let commitTitle: string | null = null;
    if (!removed) {
      const repository = this.deps.repositories.open(push.project_id);
      // A new branch counts the commits on no other branch; an update those since the old tip.
      const excluding = created ? (await repository.branches()).filter((branch) => branch.name !== name).map((branch) => branch.commit.id) : [push.before];
      const commits = tag ? [] : await repository.newCommits(push.after, excluding, PUSH_COMMITS_COUNTED);
      commitCount = commits.length;
      commitTitle = commits[0]?.title ?? (await repository.commit(push.after))?.title ?? null;
    }
    return {
      commit_count: commitCount,
      action: created ? 'created' : removed ? 'removed' : 'pushed',
      ref_type: tag ? 'tag' : 'branch',
      commit_from: created ? null : push.before,
      commit_to: removed ? null : push.after,
      ref: name,
      commit_title: commitTitle,
      ref_count: null,
    };
  }

  private async recordNote(projectId: number, actor: UserRecord, note: NoteRecord, target: { type: string; iid: number; title: string }, confidentialTarget = false): Promise<void> {
    if (note.system) return;
    await this.record({
      project_id: projectId, author_id: actor.id, action: 'commented', target_type: 'Note', target_id: note.id, target_iid: note.id, target_title: target.title,
      confidential: confidentialTarget || note.internal,
      note: { id: note.id, body: note.body, noteable_type: target.type, noteable_id: note.noteable_id, noteable_iid: target.iid, created_at: note.created_at },
    });
  }

  private async record(event: Omit<NewEvent, 'push_data' | 'note' | 'created_at' | 'confidential'> & { note?: NewEvent['note']; confidential?: boolean }): Promise<void> {
    try {
      await this.deps.events.record({ push_data: null, note: null, confidential: false, ...event, created_at: this.now() });
    } catch (error) {
      this.deps.logger.warn({ err: error, project: event.project_id, action: event.action }, 'events: recording failed');
    }
  }

  private base(projectId: number, authorId: number, action: EventAction): Omit<NewEvent, 'push_data'> {
    return { project_id: projectId, author_id: authorId, action, target_type: null, target_id: null, target_iid: null, target_title: null, note: null, confidential: false, created_at: this.now() };
  }

  private now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }
}

/** created, closed, reopened (GitLab's event of a state change); null for an edit that changes no state. */
function stateAction(before: string | null, after: string): EventAction | null {
  if (before === null) return 'created';
  if (before === after) return null;
  if (after === 'closed') return 'closed';
  if (after === 'opened' && before === 'closed') return 'reopened';
  return null;
}
