import { GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { MergeRequestApprovalsStore } from '../../../../storage/types-merge-request-approvals.ts';
import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { MergeRequestPermissions } from '../../access/merge-request-permissions.ts';
import type { Actor } from '../../access/permissions.ts';
import { MERGE_MESSAGES } from './merge-rules.ts';
import type { VisibleMergeRequests } from './visible.ts';

/** A request's approvals as `GET .../approvals` shows them to the caller. */
export interface ApprovalState {
  mergeRequest: MergeRequestRecord;
  approvedBy: { user: UserRecord; approvedAt: string }[];
  userHasApproved: boolean;
  userCanApprove: boolean;
}

export interface MergeRequestApprovalsDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  approvals: MergeRequestApprovalsStore;
  users: Pick<UsersStore, 'findByIds'>;
  mergeRequestPermissions: Pick<MergeRequestPermissions, 'canUpdateMergeRequest'>;
}

/**
 * Approvals as GitLab CE keeps them: no rules and none required; whoever may update the request
 * (its author, Developers and up: CE's `approve_merge_request`) approves it once, while it is
 * open, and may take the approval back.
 */
export class MergeRequestApprovals {
  constructor(private readonly deps: MergeRequestApprovalsDeps) {}

  async state(projectRef: string, actor: Actor, iid: number): Promise<ApprovalState> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    return this.stateOf(project, mergeRequest, actor);
  }

  /** `POST .../approve`: 401 when the caller may not (or already did) approve, 409 when `sha` is not the head. */
  async approve(projectRef: string, actor: UserRecord, iid: number, sha: string | undefined): Promise<ApprovalState> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    const before = await this.stateOf(project, mergeRequest, actor);
    if (!before.userCanApprove) throw new GantryError('GANTRY_E_MERGE_REQUEST_APPROVAL_REFUSED');
    if (sha !== undefined && sha !== mergeRequest.head_sha) throw new GantryError('GANTRY_E_MERGE_REQUEST_SHA_MISMATCH', MERGE_MESSAGES.shaMismatch(sha));
    if (!(await this.deps.approvals.approve(mergeRequest.id, actor.id, new Date().toISOString()))) throw new GantryError('GANTRY_E_MERGE_REQUEST_APPROVAL_REFUSED');
    return this.stateOf(project, mergeRequest, actor);
  }

  /** `POST .../unapprove`: 404 when the caller had not approved. */
  async unapprove(projectRef: string, actor: UserRecord, iid: number): Promise<ApprovalState> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    if (!(await this.deps.approvals.unapprove(mergeRequest.id, actor.id))) throw new GantryError('GANTRY_E_MERGE_REQUEST_APPROVAL_NOT_FOUND');
    return this.stateOf(project, mergeRequest, actor);
  }

  private async stateOf(project: ProjectRecord, mergeRequest: MergeRequestRecord, actor: Actor): Promise<ApprovalState> {
    const approvals = await this.deps.approvals.of(mergeRequest.id);
    const users = new Map((approvals.length ? await this.deps.users.findByIds(approvals.map((approval) => approval.user_id)) : []).map((user) => [user.id, user]));
    const approvedBy = approvals.flatMap((approval) => {
      const user = users.get(approval.user_id);
      return user ? [{ user, approvedAt: approval.created_at }] : [];
    });
    const userHasApproved = actor !== null && approvals.some((approval) => approval.user_id === actor.id);
    // GitLab's `can_be_approved_by?`: not approved yet by them, an open request, and `approve_merge_request`.
    const userCanApprove = actor !== null && !userHasApproved && mergeRequest.state === 'opened' && (await this.deps.mergeRequestPermissions.canUpdateMergeRequest(project, mergeRequest, actor));
    return { mergeRequest, approvedBy, userHasApproved, userCanApprove };
  }
}
