import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { IssuesStore } from '../../../storage/types-planning.ts';
import type { TimelogsStore } from '../../../storage/types-timelogs.ts';
import type { MergeRequestPermissions } from '../access/merge-request-permissions.ts';
import type { Actor } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import { humanDuration, MAX_DURATION_SECONDS, parseDuration } from './durations.ts';
import type { Noteable, NoteableRef, Noteables } from './noteables.ts';
import type { SystemNotes } from './system-notes.ts';

const MAX_SUMMARY = 255;

/** What the time stats answer shows: an issue's or a merge request's totals. */
export type TimeTracked = Noteable['record'];

export interface TimeTrackingServiceDeps {
  issues: Pick<IssuesStore, 'update'>;
  mergeRequests: Pick<MergeRequestsStore, 'update'>;
  timelogs: TimelogsStore;
  noteables: Pick<Noteables, 'find'>;
  planningPermissions: Pick<PlanningPermissions, 'canAdminIssues'>;
  mergeRequestPermissions: Pick<MergeRequestPermissions, 'canAdminMergeRequests'>;
  systemNotes: Pick<SystemNotes, 'add'>;
}

/**
 * Time tracking on issues and merge requests, as GitLab's TimeTrackable: whoever sees one reads
 * its time stats; Reporters and up on issues (admin_issue), Developers and up on merge requests
 * (admin_merge_request) set its estimate and log time spent, each change recorded as a system
 * note worded as GitLab words it.
 */
export class TimeTrackingService {
  constructor(private readonly deps: TimeTrackingServiceDeps) {}

  async stats(projectRef: string, actor: Actor, ref: NoteableRef): Promise<TimeTracked> {
    return (await this.deps.noteables.find(projectRef, actor, ref)).record;
  }

  /** `duration` in GitLab's syntax; `0` removes the estimate. */
  async setEstimate(projectRef: string, actor: UserRecord, ref: NoteableRef, duration: string): Promise<TimeTracked> {
    const target = await this.administered(projectRef, actor, ref);
    const seconds = parseDuration(duration, { keepZero: true });
    if (seconds === null || seconds < 0) throw validationFailed({ time_estimate: ['must have a valid format and be greater than or equal to zero.'] });
    return this.estimate(target, actor, seconds);
  }

  async resetEstimate(projectRef: string, actor: UserRecord, ref: NoteableRef): Promise<TimeTracked> {
    return this.estimate(await this.administered(projectRef, actor, ref), actor, 0);
  }

  /** `duration` may be negative (`-1h`): time subtracted, never below a total of zero. */
  async addSpent(projectRef: string, actor: UserRecord, ref: NoteableRef, duration: string, summary?: string): Promise<TimeTracked> {
    const target = await this.administered(projectRef, actor, ref);
    const seconds = parseDuration(duration);
    if (seconds === null) throw validationFailed({ time_spent: ['has an invalid format'] });
    if (summary !== undefined && [...summary].length > MAX_SUMMARY) throw validationFailed({ summary: [`is too long (maximum is ${MAX_SUMMARY} characters)`] });
    return this.spend(target, actor, seconds, summary || null);
  }

  /** Subtracts the whole total (a time log of minus the total, as GitLab records it). */
  async resetSpent(projectRef: string, actor: UserRecord, ref: NoteableRef): Promise<TimeTracked> {
    return this.spend(await this.administered(projectRef, actor, ref), actor, 'reset', null);
  }

  private async administered(projectRef: string, actor: UserRecord, ref: NoteableRef): Promise<Noteable> {
    const found = await this.deps.noteables.find(projectRef, actor, ref);
    const allowed = found.type === 'Issue' ? this.deps.planningPermissions.canAdminIssues(found.project, actor) : this.deps.mergeRequestPermissions.canAdminMergeRequests(found.project, actor);
    if (!(await allowed)) throw accessDenied();
    return found;
  }

  /** An unchanged estimate changes nothing and writes no note, as in GitLab. */
  private async estimate(target: Noteable, actor: UserRecord, seconds: number): Promise<TimeTracked> {
    const { record } = target;
    if (seconds === record.time_estimate) return record;
    const now = new Date().toISOString();
    const changes = { time_estimate: seconds, updated_at: now };
    const updated = target.type === 'Issue' ? await this.deps.issues.update(record.id, changes, {}) : await this.deps.mergeRequests.update(record.id, changes, {});
    if (!updated) throw new GantryError(target.type === 'Issue' ? 'GANTRY_E_ISSUE_NOT_FOUND' : 'GANTRY_E_MERGE_REQUEST_NOT_FOUND');
    await this.deps.systemNotes.add({ type: target.type, id: record.id, project_id: record.project_id }, actor.id, seconds === 0 ? 'removed time estimate' : `changed time estimate to ${humanDuration(seconds)}`, now);
    return updated;
  }

  private async spend(target: Noteable, actor: UserRecord, seconds: number | 'reset', summary: string | null): Promise<TimeTracked> {
    const now = new Date().toISOString();
    const { project, record } = target;
    const outcome =
      target.type === 'Issue'
        ? await this.deps.timelogs.addSpent({ project_id: project.id, issue_id: record.id, user_id: actor.id, summary, at: now }, seconds, MAX_DURATION_SECONDS)
        : await this.deps.timelogs.addSpentOnMergeRequest({ project_id: project.id, merge_request_id: record.id, user_id: actor.id, summary, at: now }, seconds, MAX_DURATION_SECONDS);
    if (outcome === undefined) throw new GantryError(target.type === 'Issue' ? 'GANTRY_E_ISSUE_NOT_FOUND' : 'GANTRY_E_MERGE_REQUEST_NOT_FOUND');
    if (outcome === 'exceeds_total') throw validationFailed({ base: ['Time to subtract exceeds the total time spent'] });
    if (outcome === 'over_maximum') throw validationFailed({ base: [`Total time spent cannot exceed ${humanDuration(MAX_DURATION_SECONDS)}`] });
    const body = seconds === 'reset' ? 'removed time spent' : `${outcome.logged > 0 ? 'added' : 'subtracted'} ${humanDuration(Math.abs(outcome.logged))} of time spent`;
    await this.deps.systemNotes.add({ type: target.type, id: record.id, project_id: record.project_id }, actor.id, body, now);
    return 'issue' in outcome ? outcome.issue : outcome.mergeRequest;
  }
}
