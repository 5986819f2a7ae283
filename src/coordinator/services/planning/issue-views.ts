import type { NamespacesStore, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { AwardEmojiStore, IssueVotes } from '../../../storage/types-award-emoji.ts';
import type { IssueRecord, IssuesStore, LabelRecord, MilestoneRecord, MilestonesStore } from '../../../storage/types-planning.ts';
import type { NotesStore } from '../../../storage/types-notes.ts';
import type { MergeRequestIssueLinksStore } from '../../../storage/types-merge-requests.ts';

/** An issue with what its answer shows, gathered for a whole page at once. */
export interface IssueView {
  issue: IssueRecord;
  /** `namespace/project` of its project. */
  projectPath: string;
  labels: string[];
  /** The same labels by id (system notes name them `~id`). */
  labelIds: number[];
  /** The same labels whole (the lists' `with_labels_details`). */
  labelRecords: LabelRecord[];
  milestone: { milestone: MilestoneRecord; ownerPath: string } | null;
  author: UserRecord | null;
  assignees: UserRecord[];
  closedBy: UserRecord | null;
  /** Notes people wrote that everyone who sees the issue reads (not system, not internal). */
  userNotesCount: number;
  /** Thumbs up and thumbs down awarded. */
  votes: IssueVotes;
  /** Merge requests that close it on merge (GitLab's merge_requests_count). */
  mergeRequestsCount: number;
}

export interface IssueViewsDeps {
  issues: Pick<IssuesStore, 'labelsOf' | 'assigneesOf'>;
  milestones: Pick<MilestonesStore, 'findByIds'>;
  users: Pick<UsersStore, 'findByIds'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  namespaces: Pick<NamespacesStore, 'findByIds'>;
  notes: Pick<NotesStore, 'userNoteCounts'>;
  awardEmoji: Pick<AwardEmojiStore, 'votesOf'>;
  mergeRequestIssueLinks: Pick<MergeRequestIssueLinksStore, 'closingCounts'>;
}

/**
 * The views of a page of issues in nine statements whatever its size: labels, assignees,
 * milestones, users, projects, namespaces, note counts, votes and closing merge request counts,
 * each read once for all of them.
 */
export class IssueViews {
  constructor(private readonly deps: IssueViewsDeps) {}

  async many(issues: readonly IssueRecord[]): Promise<IssueView[]> {
    if (issues.length === 0) return [];
    const { deps } = this;
    const ids = issues.map((issue) => issue.id);
    const milestoneIds = issues.flatMap((issue) => (issue.milestone_id === null ? [] : [issue.milestone_id]));
    // Two waves of independent reads: on PostgreSQL each wave's statements travel side by side.
    const [labels, assignees, milestoneList, projectList, votes, noteCounts, closingCounts] = await Promise.all([
      deps.issues.labelsOf(ids),
      deps.issues.assigneesOf(ids),
      milestoneIds.length ? deps.milestones.findByIds(milestoneIds) : Promise.resolve([]),
      deps.projects.findByIds([...new Set(issues.map((issue) => issue.project_id))]),
      deps.awardEmoji.votesOf(ids),
      deps.notes.userNoteCounts('Issue', ids),
      deps.mergeRequestIssueLinks.closingCounts(ids),
    ]);
    const milestones = new Map(milestoneList.map((milestone) => [milestone.id, milestone]));
    const projects = new Map(projectList.map((project) => [project.id, project]));
    const userIds = issues.flatMap((issue) => [issue.author_id, ...(issue.closed_by_id === null ? [] : [issue.closed_by_id]), ...(assignees.get(issue.id) ?? [])]);
    const namespaceIds = [...projectList.map((project) => project.namespace_id), ...milestoneList.flatMap((milestone) => (milestone.group_id === null ? [] : [milestone.group_id]))];
    const [userList, namespaceList] = await Promise.all([deps.users.findByIds([...new Set(userIds)]), deps.namespaces.findByIds([...new Set(namespaceIds)])]);
    const users = new Map(userList.map((user) => [user.id, user]));
    const namespaces = new Map(namespaceList.map((namespace) => [namespace.id, namespace.full_path]));
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
        labelRecords: labels.get(issue.id) ?? [],
        milestone: milestone ? { milestone, ownerPath: milestone.project_id !== null ? projectPath(milestone.project_id) : (namespaces.get(milestone.group_id ?? -1) ?? '') } : null,
        author: users.get(issue.author_id) ?? null,
        assignees: (assignees.get(issue.id) ?? []).flatMap((userId) => users.get(userId) ?? []),
        closedBy: issue.closed_by_id === null ? null : (users.get(issue.closed_by_id) ?? null),
        userNotesCount: noteCounts.get(issue.id) ?? 0,
        votes: votes.get(issue.id) ?? { upvotes: 0, downvotes: 0 },
        mergeRequestsCount: closingCounts.get(issue.id) ?? 0,
      };
    });
  }

  async one(issue: IssueRecord): Promise<IssueView> {
    const [view] = await this.many([issue]);
    return view!;
  }
}
