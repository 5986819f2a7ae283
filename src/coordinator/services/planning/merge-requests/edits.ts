import { accessDenied, GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord, UserRecord } from '../../../../storage/types.ts';
import {
  OpenMergeRequestExists,
  type MergeRequestChanges,
  type MergeRequestRecord,
  type MergeRequestRelations,
  type MergeRequestsStore,
} from '../../../../storage/types-merge-requests.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { MergeRequestPermissions } from '../../access/merge-request-permissions.ts';
import type { IssueFields } from '../issue-fields.ts';
import type { MergeRequestFields } from './fields.ts';
import { announceMergeRequestSaved, type MergeRequestObserver } from './observers.ts';
import { snapshotOf, type MergeRequestView, type MergeRequestViews } from './views.ts';
import type { VisibleMergeRequests } from './visible.ts';

/** What a request's labels, milestone and people are set to; undefined: unchanged (or empty on create). */
interface AdminFields {
  labels?: readonly string[];
  milestoneId?: number | null;
  assigneeIds?: readonly number[];
  reviewerIds?: readonly number[];
}

export interface NewMergeRequestInput extends AdminFields {
  sourceBranch: string;
  targetBranch: string;
  title: string;
  description?: string;
  /** A fork's request into its upstream: the target project (id or path). */
  targetProjectId?: number;
  removeSourceBranch?: boolean;
  squash?: boolean;
  allowCollaboration?: boolean;
}

export interface MergeRequestUpdateInput extends AdminFields {
  title?: string;
  description?: string;
  targetBranch?: string;
  stateEvent?: 'close' | 'reopen';
  addLabels?: readonly string[];
  removeLabels?: readonly string[];
  removeSourceBranch?: boolean;
  squash?: boolean;
  discussionLocked?: boolean;
  allowCollaboration?: boolean;
}

export interface MergeRequestEditsDeps {
  mergeRequests: Pick<MergeRequestsStore, 'create' | 'update' | 'labelsOf' | 'findByIds'>;
  lookup: Pick<Lookup, 'readableProject'>;
  mergeRequestPermissions: MergeRequestPermissions;
  issueFields: Pick<IssueFields, 'labelIds' | 'milestoneId'>;
  fields: MergeRequestFields;
  views: MergeRequestViews;
  visible: Pick<VisibleMergeRequests, 'inProject'>;
  /** Told of every request created or updated (system notes, todos, refs, pipelines …), in order. */
  observers: readonly MergeRequestObserver[];
}

/**
 * Opening and editing merge requests. A request is opened from a project where the caller
 * pushes (Developer and up) into that project or one it was forked from, where anyone signed in
 * who reads its merge requests may open one; authors and Developers and up edit it, and only
 * Developers and up set labels, milestone, assignees, reviewers and the lock.
 */
export class MergeRequestEdits {
  constructor(private readonly deps: MergeRequestEditsDeps) {}

  /** `POST /projects/:id/merge_requests`: `:id` is the source project. Answers the target project and the view. */
  async create(sourceRef: string, actor: UserRecord, input: NewMergeRequestInput): Promise<{ project: ProjectRecord; view: MergeRequestView }> {
    const { lookup, mergeRequestPermissions: rules, fields } = this.deps;
    const source = await lookup.readableProject(sourceRef, actor);
    const target = input.targetProjectId === undefined || input.targetProjectId === source.id ? source : await this.targetProject(input.targetProjectId, actor);
    if (!(await rules.canCreateMergeRequestFrom(source, actor)) || !(await rules.canCreateMergeRequestIn(target, actor))) throw accessDenied();
    if (target !== source) await fields.checkForkNetwork(source, target);
    fields.checkDistinct(source.id, input.sourceBranch, target.id, input.targetBranch);
    const headSha = await fields.sourceTip(source, input.sourceBranch);
    await fields.checkTargetBranch(target, input.targetBranch);
    const admin = await rules.canAdminMergeRequests(target, actor);
    const now = new Date().toISOString();
    const milestoneId = admin && input.milestoneId !== undefined ? await this.deps.issueFields.milestoneId(target, input.milestoneId) : null;
    const relations = admin ? { ...(await this.people(target, input)), labelIds: input.labels === undefined ? undefined : await this.deps.issueFields.labelIds(target, input.labels) } : {};
    const record = await this.guardPair(() =>
      this.deps.mergeRequests.create(
        {
          project_id: target.id,
          source_project_id: source.id,
          source_branch: input.sourceBranch,
          target_branch: input.targetBranch,
          author_id: actor.id,
          title: input.title,
          description: input.description ?? null,
          state: 'opened',
          head_sha: headSha,
          force_remove_source_branch: input.removeSourceBranch ?? false,
          squash: input.squash ?? false,
          allow_collaboration: target !== source && (input.allowCollaboration ?? false),
          discussion_locked: null,
          milestone_id: milestoneId,
          created_at: now,
        },
        relations,
      ),
    );
    const view = await this.deps.views.one(record);
    await announceMergeRequestSaved(this.deps.observers, { project: target, actor, before: null, after: snapshotOf(view), at: now });
    return { project: target, view: await this.afterObservers(view) };
  }

  async update(projectRef: string, actor: UserRecord, iid: number, input: MergeRequestUpdateInput): Promise<{ project: ProjectRecord; view: MergeRequestView }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const record = await this.deps.visible.inProject(project, actor, iid);
    const rules = this.deps.mergeRequestPermissions;
    if (!(await rules.canUpdateMergeRequest(project, record, actor))) throw accessDenied();
    const admin = await rules.canAdminMergeRequests(project, actor);
    const now = new Date().toISOString();
    const changes: MergeRequestChanges = {
      title: input.title,
      description: input.description,
      force_remove_source_branch: input.removeSourceBranch,
      squash: input.squash,
      allow_collaboration: input.allowCollaboration === undefined ? undefined : record.source_project_id !== record.project_id && input.allowCollaboration,
      updated_at: now,
    };
    if (input.targetBranch !== undefined && input.targetBranch !== record.target_branch) {
      this.deps.fields.checkDistinct(record.source_project_id, record.source_branch, record.project_id, input.targetBranch);
      await this.deps.fields.checkTargetBranch(project, input.targetBranch);
      changes.target_branch = input.targetBranch;
    }
    Object.assign(changes, stateChange(record, input.stateEvent, actor, now));
    const relations: MergeRequestRelations = {};
    if (admin) {
      if (input.discussionLocked !== undefined) changes.discussion_locked = input.discussionLocked;
      if (input.milestoneId !== undefined) changes.milestone_id = await this.deps.issueFields.milestoneId(project, input.milestoneId);
      Object.assign(relations, await this.people(project, input), { labelIds: await this.labelsAfter(project, record, input) });
    }
    const before = this.deps.observers.length > 0 ? snapshotOf(await this.deps.views.one(record)) : null;
    const updated = await this.guardPair(() => this.deps.mergeRequests.update(record.id, changes, relations));
    if (!updated) throw new GantryError('GANTRY_E_MERGE_REQUEST_NOT_FOUND');
    const view = await this.deps.views.one(updated);
    if (!before) return { project, view };
    await announceMergeRequestSaved(this.deps.observers, { project, actor, before, after: snapshotOf(view), at: now });
    return { project, view: await this.afterObservers(view) };
  }

  /**
   * The request as the observers left it: a create, reopen or retarget has been refreshed by
   * then (diff_refs, head and merge status), and the answer shows it, as GitLab's does.
   */
  private async afterObservers(view: MergeRequestView): Promise<MergeRequestView> {
    const [current] = await this.deps.mergeRequests.findByIds([view.record.id]);
    return current === undefined ? view : this.deps.views.one(current);
  }

  /** The target of a fork's request: 403 when the caller cannot see it (as GitLab answers). */
  private async targetProject(id: number, actor: UserRecord): Promise<ProjectRecord> {
    try {
      return await this.deps.lookup.readableProject(id, actor);
    } catch (error) {
      if (error instanceof GantryError && error.code === 'GANTRY_E_PROJECT_NOT_FOUND') throw accessDenied();
      throw error;
    }
  }

  /** Assignees and reviewers given; undefined: unchanged. */
  private async people(project: ProjectRecord, input: AdminFields): Promise<MergeRequestRelations> {
    const { fields } = this.deps;
    return {
      ...(input.assigneeIds === undefined ? {} : { assigneeIds: await fields.people(project, input.assigneeIds) }),
      ...(input.reviewerIds === undefined ? {} : { reviewerIds: await fields.people(project, input.reviewerIds) }),
    };
  }

  /** `labels` replaces them all; `add_labels` and `remove_labels` change the current ones. Undefined: unchanged. */
  private async labelsAfter(project: ProjectRecord, record: MergeRequestRecord, input: MergeRequestUpdateInput): Promise<number[] | undefined> {
    if (input.labels === undefined && input.addLabels === undefined && input.removeLabels === undefined) return undefined;
    const { issueFields } = this.deps;
    const current = input.labels !== undefined ? await issueFields.labelIds(project, input.labels) : ((await this.deps.mergeRequests.labelsOf([record.id])).get(record.id) ?? []).map((label) => label.id);
    const added = input.addLabels ? await issueFields.labelIds(project, input.addLabels) : [];
    const removed = new Set(input.removeLabels ? await issueFields.labelIds(project, input.removeLabels) : []);
    return [...new Set([...current, ...added])].filter((id) => !removed.has(id));
  }

  /** 409 in GitLab's words when the pair of branches already has an open request. */
  private async guardPair<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof OpenMergeRequestExists)) throw error;
      const reference = error.existingIid === null ? '' : `: !${error.existingIid}`;
      throw new GantryError('GANTRY_E_MERGE_REQUEST_EXISTS', `Another open merge request already exists for this source branch${reference}`);
    }
  }
}

/** `state_event`: close an open request, reopen a closed one; anything else (a merged request) stays as it is. */
function stateChange(record: MergeRequestRecord, event: MergeRequestUpdateInput['stateEvent'], actor: UserRecord, now: string): MergeRequestChanges {
  if (event === 'close' && record.state === 'opened') return { state: 'closed', closed_at: now, closed_by_id: actor.id };
  if (event === 'reopen' && record.state === 'closed') return { state: 'opened', closed_at: null, closed_by_id: null };
  return {};
}
