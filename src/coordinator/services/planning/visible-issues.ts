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

/** An issue the caller may see, for the routes below an issue (award emoji, time tracking). */
export class VisibleIssues {
  constructor(private readonly deps: VisibleIssuesDeps) {}

  /** 404 for no project, issues disabled, no such iid, or a confidential issue the caller may not see. */
  async find(projectRef: string, actor: Actor, iid: number): Promise<{ project: ProjectRecord; issue: IssueRecord }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    const issue = await this.deps.issues.findByIid(project.id, iid);
    if (!issue) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    const assignees = issue.confidential ? ((await this.deps.issues.assigneesOf([issue.id])).get(issue.id) ?? []) : [];
    if (!(await this.deps.planningPermissions.canSeeIssue(project, issue, assignees, actor))) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    return { project, issue };
  }
}
