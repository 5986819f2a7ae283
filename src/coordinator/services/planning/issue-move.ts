import type { VisibleIssues } from './visible-issues.ts';
import { GantryError } from '../../../shared/errors.ts';
import type { IssueMovesStore } from '../../../storage/types-issue-moves.ts';
import type { IssueRecord, IssuesStore, LabelsStore, MilestonesStore } from '../../../storage/types-planning.ts';
import type { NamespacesStore, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { IssueFields } from './issue-fields.ts';
import type { IssueView, IssueViews } from './issue-views.ts';
import type { SystemNotes } from './system-notes.ts';

export interface IssueMoveDeps {
  visibleIssues: Pick<VisibleIssues, 'inProject'>;
  lookup: Pick<Lookup, 'readableProject'>;
  issues: Pick<IssuesStore, 'findByIid' | 'labelsOf' | 'assigneesOf'>;
  labels: Pick<LabelsStore, 'findByTitles'>;
  milestones: Pick<MilestonesStore, 'findById' | 'list'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  moves: IssueMovesStore;
  planningPermissions: Pick<PlanningPermissions, 'canReadIssues' | 'canSeeIssue' | 'canAdminIssues'>;
  fields: Pick<IssueFields, 'ancestorGroupIds'>;
  views: Pick<IssueViews, 'one'>;
  systemNotes: Pick<SystemNotes, 'add'>;
}

const refused = (reason: string) => new GantryError('GANTRY_E_ISSUE_MOVE_REFUSED', reason);

/**
 * `POST /projects/:id/issues/:issue_iid/move`, as GitLab's Issues::MoveService: whoever
 * administers issues (Reporter and up) in both projects moves an issue not moved before to
 * another project. The copy keeps title, description, author, confidentiality, due date,
 * times, state and created_at; its labels and milestone are the target's of the same titles
 * (others are dropped); assignees stay; notes and award emoji are copied. The original is
 * closed with `moved_to_id` set; "moved to …" and "moved from …" notes record it.
 */
export class IssueMove {
  constructor(private readonly deps: IssueMoveDeps) {}

  async move(projectRef: string, actor: UserRecord, iid: number, toProjectId: number): Promise<IssueView> {
    const source = await this.deps.lookup.readableProject(projectRef, actor);
    const rules = this.deps.planningPermissions;
    if (!(await rules.canReadIssues(source, actor))) throw new GantryError('GANTRY_E_ISSUE_NOT_FOUND');
    const issue = await this.deps.visibleIssues.inProject(source, actor, iid);
    const target = await this.deps.lookup.readableProject(toProjectId, actor);
    const mayMove = issue.moved_to_id === null && (await rules.canAdminIssues(source, actor)) && (await rules.canReadIssues(target, actor)) && (await rules.canAdminIssues(target, actor));
    if (!mayMove) throw refused('Cannot move issue due to insufficient permissions!');
    if (target.id === source.id) throw refused('Cannot move issue to project it originates from!');

    const at = new Date().toISOString();
    const created = await this.deps.moves.move({
      original: issue,
      copy: {
        project_id: target.id, author_id: issue.author_id, title: issue.title, description: issue.description, state: issue.state,
        confidential: issue.confidential, discussion_locked: issue.discussion_locked, milestone_id: await this.milestoneIn(target, issue),
        due_date: issue.due_date, time_estimate: issue.time_estimate, total_time_spent: issue.total_time_spent,
        closed_at: issue.closed_at, closed_by_id: issue.closed_by_id, created_at: issue.created_at, updated_at: at,
      },
      relations: { labelIds: await this.labelsIn(target, issue), assigneeIds: (await this.deps.issues.assigneesOf([issue.id])).get(issue.id) ?? [] },
      movedBy: actor.id,
      at,
    });
    if (!created) throw refused('Cannot move issue due to insufficient permissions!');
    const [sourcePath, targetPath] = await Promise.all([this.namespacePath(source), this.namespacePath(target)]);
    await this.deps.systemNotes.add({ type: 'Issue', id: created.id, project_id: target.id }, actor.id, `moved from ${reference(source, sourcePath, issue.iid, target)}`, at);
    await this.deps.systemNotes.add({ type: 'Issue', id: issue.id, project_id: source.id }, actor.id, `moved to ${reference(target, targetPath, created.iid, source)}`, at);
    return this.deps.views.one(created);
  }


  /** The target's labels (its own first, then its groups') of the titles the issue has; titles it lacks are dropped. */
  private async labelsIn(target: ProjectRecord, issue: IssueRecord): Promise<number[]> {
    const titles = ((await this.deps.issues.labelsOf([issue.id])).get(issue.id) ?? []).map((label) => label.title);
    if (titles.length === 0) return [];
    const found = await this.deps.labels.findByTitles({ projectIds: [target.id], groupIds: await this.deps.fields.ancestorGroupIds(target) }, titles);
    const byTitle = new Map<string, number>();
    for (const label of found) if (!byTitle.has(label.title) || label.project_id !== null) byTitle.set(label.title, label.id);
    return titles.flatMap((title) => byTitle.get(title) ?? []);
  }

  private async milestoneIn(target: ProjectRecord, issue: IssueRecord): Promise<number | null> {
    if (issue.milestone_id === null) return null;
    const milestone = await this.deps.milestones.findById(issue.milestone_id);
    if (!milestone) return null;
    const owners = { projectIds: [target.id], groupIds: await this.deps.fields.ancestorGroupIds(target) };
    const { items } = await this.deps.milestones.list(owners, { title: milestone.title }, { offset: 0, limit: 1 });
    return items[0]?.id ?? null;
  }

  private async namespacePath(project: ProjectRecord): Promise<string> {
    return (await this.deps.namespaces.findById(project.namespace_id))?.full_path ?? '';
  }
}

/** An issue as GitLab names it from another project: `project#iid` within one namespace, `group/project#iid` across. */
function reference(project: ProjectRecord, namespacePath: string, iid: number, from: ProjectRecord): string {
  return project.namespace_id === from.namespace_id ? `${project.path}#${iid}` : `${namespacePath}/${project.path}#${iid}`;
}
