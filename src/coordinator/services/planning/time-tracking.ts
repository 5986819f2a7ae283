import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { IssueRecord, IssuesStore } from '../../../storage/types-planning.ts';
import type { TimelogsStore } from '../../../storage/types-timelogs.ts';
import type { Actor } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import { humanDuration, MAX_DURATION_SECONDS, parseDuration } from './durations.ts';
import type { SystemNotes } from './system-notes.ts';
import type { VisibleIssues } from './visible-issues.ts';

const MAX_SUMMARY = 255;

export interface TimeTrackingServiceDeps {
  issues: Pick<IssuesStore, 'update'>;
  timelogs: TimelogsStore;
  visibleIssues: Pick<VisibleIssues, 'find'>;
  planningPermissions: Pick<PlanningPermissions, 'canAdminIssues'>;
  systemNotes: Pick<SystemNotes, 'add'>;
}

/**
 * Time tracking on issues, as GitLab's TimeTrackable: whoever sees an issue reads its time
 * stats; Reporters and up (admin_issue) set its estimate and log time spent, each change
 * recorded as a system note worded as GitLab words it.
 */
export class TimeTrackingService {
  constructor(private readonly deps: TimeTrackingServiceDeps) {}

  async stats(projectRef: string, actor: Actor, iid: number): Promise<IssueRecord> {
    return (await this.deps.visibleIssues.find(projectRef, actor, iid)).issue;
  }

  /** `duration` in GitLab's syntax; `0` removes the estimate. */
  async setEstimate(projectRef: string, actor: UserRecord, iid: number, duration: string): Promise<IssueRecord> {
    const { issue } = await this.administered(projectRef, actor, iid);
    const seconds = parseDuration(duration, { keepZero: true });
    if (seconds === null || seconds < 0) throw validationFailed({ time_estimate: ['must have a valid format and be greater than or equal to zero.'] });
    return this.estimate(issue, actor, seconds);
  }

  async resetEstimate(projectRef: string, actor: UserRecord, iid: number): Promise<IssueRecord> {
    const { issue } = await this.administered(projectRef, actor, iid);
    return this.estimate(issue, actor, 0);
  }

  /** `duration` may be negative (`-1h`): time subtracted, never below a total of zero. */
  async addSpent(projectRef: string, actor: UserRecord, iid: number, duration: string, summary?: string): Promise<IssueRecord> {
    const { project, issue } = await this.administered(projectRef, actor, iid);
    const seconds = parseDuration(duration);
    if (seconds === null) throw validationFailed({ time_spent: ['has an invalid format'] });
    if (summary !== undefined && [...summary].length > MAX_SUMMARY) throw validationFailed({ summary: [`is too long (maximum is ${MAX_SUMMARY} characters)`] });
    return this.spend(project, issue, actor, seconds, summary || null);
  }

  /** Subtracts the whole total (a time log of minus the total, as GitLab records it). */
  async resetSpent(projectRef: string, actor: UserRecord, iid: number): Promise<IssueRecord> {
    const { project, issue } = await this.administered(projectRef, actor, iid);
    return this.spend(project, issue, actor, 'reset', null);
  }

  private async administered(projectRef: string, actor: UserRecord, iid: number): Promise<{ project: ProjectRecord; issue: IssueRecord }> {
    const found = await this.deps.visibleIssues.find(projectRef, actor, iid);
    if (!(await this.deps.planningPermissions.canAdminIssues(found.project, actor))) throw accessDenied();
    return found;
  }

  /** An unchanged estimate changes nothing and writes no note, as in GitLab. */
  private async estimate(issue: IssueRecord, actor: UserRecord, seconds: number): Promise<IssueRecord> {
    if (seconds === issue.time_estimate) return issue;
    const now = new Date().toISOString();
    const updated = await this.deps.issues.update(issue.id, { time_estimate: seconds, updated_at: now }, {});
    if (!updated) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    await this.deps.systemNotes.add({ type: 'Issue', id: issue.id, project_id: issue.project_id }, actor.id, seconds === 0 ? 'removed time estimate' : `changed time estimate to ${humanDuration(seconds)}`, now);
    return updated;
  }

  private async spend(project: ProjectRecord, issue: IssueRecord, actor: UserRecord, seconds: number | 'reset', summary: string | null): Promise<IssueRecord> {
    const now = new Date().toISOString();
    const outcome = await this.deps.timelogs.addSpent({ project_id: project.id, issue_id: issue.id, user_id: actor.id, summary, at: now }, seconds, MAX_DURATION_SECONDS);
    if (outcome === undefined) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    if (outcome === 'exceeds_total') throw validationFailed({ base: ['Time to subtract exceeds the total time spent'] });
    if (outcome === 'over_maximum') throw validationFailed({ base: [`Total time spent cannot exceed ${humanDuration(MAX_DURATION_SECONDS)}`] });
    const body = seconds === 'reset' ? 'removed time spent' : `${outcome.logged > 0 ? 'added' : 'subtracted'} ${humanDuration(Math.abs(outcome.logged))} of time spent`;
    await this.deps.systemNotes.add({ type: 'Issue', id: issue.id, project_id: issue.project_id }, actor.id, body, now);
    return outcome.issue;
  }
}
