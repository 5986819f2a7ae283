import type { NamespacesStore, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { AwardEmojiStore, IssueVotes } from '../../../storage/types-award-emoji.ts';
import type { IssueRecord, IssuesStore, MilestoneRecord, MilestonesStore } from '../../../storage/types-planning.ts';
import type { NotesStore } from '../../../storage/types-notes.ts';

/** An issue with what its answer shows, gathered for a whole page at once. */
export interface IssueView {
  issue: IssueRecord;
  /** `namespace/project` of its project. */
  projectPath: string;
  labels: string[];
  /** The same labels by id (system notes name them `~id`). */
  labelIds: number[];
  milestone: { milestone: MilestoneRecord; ownerPath: string } | null;
  author: UserRecord | null;
  assignees: UserRecord[];
  closedBy: UserRecord | null;
  /** Notes people wrote that everyone who sees the issue reads (not system, not internal). */
  userNotesCount: number;
  /** Thumbs up and thumbs down awarded. */
  votes: IssueVotes;
}

export interface IssueViewsDeps {
  issues: Pick<IssuesStore, 'labelsOf' | 'assigneesOf'>;
  milestones: Pick<MilestonesStore, 'findByIds'>;
  users: Pick<UsersStore, 'findByIds'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  namespaces: Pick<NamespacesStore, 'findByIds'>;
  notes: Pick<NotesStore, 'userNoteCounts'>;
  awardEmoji: Pick<AwardEmojiStore, 'votesOf'>;
}

/**
 * The views of a page of issues in eight statements whatever its size: labels, assignees,
 * milestones, users, projects, namespaces, note counts and votes, each read once for all of them.
 */
export class IssueViews {
  constructor(private readonly deps: IssueViewsDeps) {}

  async many(issues: readonly IssueRecord[]): Promise<IssueView[]> {
    if (issues.length === 0) return [];
    const { deps } = this;
    const ids = issues.map((issue) => issue.id);
    const labels = await deps.issues.labelsOf(ids);
    const assignees = await deps.issues.assigneesOf(ids);
    const milestoneIds = issues.flatMap((issue) => (issue.milestone_id === null ? [] : [issue.milestone_id]));
    const milestones = new Map((milestoneIds.length ? await deps.milestones.findByIds(milestoneIds) : []).map((milestone) => [milestone.id, milestone]));
    const userIds = issues.flatMap((issue) => [issue.author_id, ...(issue.closed_by_id === null ? [] : [issue.closed_by_id]), ...(assignees.get(issue.id) ?? [])]);
    const users = new Map((await deps.users.findByIds([...new Set(userIds)])).map((user) => [user.id, user]));
    const projects = new Map((await deps.projects.findByIds([...new Set(issues.map((issue) => issue.project_id))])).map((project) => [project.id, project]));
    const namespaceIds = [...[...projects.values()].map((project) => project.namespace_id), ...[...milestones.values()].flatMap((milestone) => (milestone.group_id === null ? [] : [milestone.group_id]))];
    const votes = await deps.awardEmoji.votesOf(ids);
    const namespaces = new Map((await deps.namespaces.findByIds([...new Set(namespaceIds)])).map((namespace) => [namespace.id, namespace.full_path]));
    const noteCounts = await deps.notes.userNoteCounts('Issue', ids);
    const projectPath = (projectId: number) => {
      const project = projects.get(projectId);
      return project ? `${namespaces.get(project.namespace_id) ?? ''}/${project.path}` : '';
    };
    return issues.map((issue) => {
      const milestone = issue.milestone_id === null ? undefined : milestones.get(issue.milestone_id);
      return {
        issue,
        projectPath: projectPath(issue.project_id),
        labels: (labels.get(issue.id) ?? []).map((label) => label.title),
        labelIds: (labels.get(issue.id) ?? []).map((label) => label.id),
        milestone: milestone ? { milestone, ownerPath: milestone.project_id !== null ? projectPath(milestone.project_id) : (namespaces.get(milestone.group_id ?? -1) ?? '') } : null,
        author: users.get(issue.author_id) ?? null,
        assignees: (assignees.get(issue.id) ?? []).flatMap((userId) => users.get(userId) ?? []),
        closedBy: issue.closed_by_id === null ? null : (users.get(issue.closed_by_id) ?? null),
        userNotesCount: noteCounts.get(issue.id) ?? 0,
        votes: votes.get(issue.id) ?? { upvotes: 0, downvotes: 0 },
      };
    });
  }

  async one(issue: IssueRecord): Promise<IssueView> {
    const [view] = await this.many([issue]);
    return view!;
  }
}
