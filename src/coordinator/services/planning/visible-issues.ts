import { GantryError } from '../../../shared/errors.ts';
import type { ProjectRecord } from '../../../storage/types.ts';
import type { IssueRecord, IssuesStore } from '../../../storage/types-planning.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';

export interface VisibleIssuesDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  issues: Pick<IssuesStore, 'findByIid' | 'assigneesOf'>;
  planningPermissions: Pick<PlanningPermissions, 'canSeeIssue'>;
}

/** The one rule of which issue a caller may see, for every service below an issue (issues, notes, award emoji, time tracking, moves). */
export class VisibleIssues {
  constructor(private readonly deps: VisibleIssuesDeps) {}

  /** 404 for no project, issues disabled, no such iid, or a confidential issue the caller may not see. */
  async find(projectRef: string, actor: Actor, iid: number): Promise<{ project: ProjectRecord; issue: IssueRecord }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    return { project, issue: await this.inProject(project, actor, iid) };
  }

  /** The issue of a project the caller reads, if they may see it: a confidential one they may not is the same 404 as none. */
  async inProject(project: ProjectRecord, actor: Actor, iid: number): Promise<IssueRecord> {
    const issue = await this.deps.issues.findByIid(project.id, iid);
    if (!issue) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    const assignees = issue.confidential ? ((await this.deps.issues.assigneesOf([issue.id])).get(issue.id) ?? []) : [];
    if (!(await this.deps.planningPermissions.canSeeIssue(project, issue, assignees, actor))) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    return issue;
  }
}
