import type { NamespacesStore, ProjectsStore, UserRecord, UsersStore } from '../../../../storage/types.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { NotesStore } from '../../../../storage/types-notes.ts';
import type { AwardEmojiStore } from '../../../../storage/types-award-emoji.ts';
import type { LabelRecord, MilestoneRecord, MilestonesStore } from '../../../../storage/types-planning.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import type { MergeRequestSnapshot } from './observers.ts';
import type { PipelinesStore } from '../../../../storage/types-ci.ts';
import { needingRebase } from './rebase-status.ts';
import { failingCiChecks, type CiMergeCheck } from './ci-merge-check.ts';

/** A merge request with what its answer shows, gathered for a whole page at once. */
export interface MergeRequestView {
  record: MergeRequestRecord;
  /** `namespace/project` of the target project (project_id). */
  projectPath: string;
  /** `namespace/project` of the source project; null once that fork is gone. */
  sourceProjectPath: string | null;
  labels: LabelRecord[];
  milestone: { milestone: MilestoneRecord; ownerPath: string } | null;
  author: UserRecord | null;
  assignees: UserRecord[];
  reviewers: UserRecord[];
  closedBy: UserRecord | null;
  mergedBy: UserRecord | null;
  /** Who merged, else who set merge when pipeline succeeds. */
  mergeUser: UserRecord | null;
  /** Notes people wrote that everyone who sees the request reads (not system, not internal). */
  userNotesCount: number;
  votes: { upvotes: number; downvotes: number };
  /** Threads with a resolvable note not resolved. */
  unresolvedDiscussions: number;
  /** GitLab's `blocking_discussions_resolved`: the project does not require resolved threads, or none is unresolved. */
  blockingDiscussionsResolved: boolean;
  /** GitLab's `should_be_rebased?`, asked of git only for a request otherwise mergeable (rebase-status.ts). */
  needsRebase: boolean;
  /** GitLab's CI check, asked only for a request otherwise mergeable in a project that requires a pipeline (ci-merge-check.ts). */
  ciCheck: CiMergeCheck;
}

export interface MergeRequestViewsDeps {
  mergeRequests: Pick<MergeRequestsStore, 'labelsOf' | 'assigneesOf' | 'reviewersOf'>;
  awardEmoji: Pick<AwardEmojiStore, 'votesOf'>;
  milestones: Pick<MilestonesStore, 'findByIds'>;
  users: Pick<UsersStore, 'findByIds'>;
  projects: Pick<ProjectsStore, 'findByIds'>;
  namespaces: Pick<NamespacesStore, 'findByIds'>;
  notes: Pick<NotesStore, 'userNoteCounts' | 'unresolvedDiscussionCounts'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  pipelines: Pick<PipelinesStore, 'findById' | 'latestFor'>;
}

const present = <T>(value: T | null): T[] => (value === null ? [] : [value]);

/**
 * The views of a page of merge requests in ten statements whatever its size: labels,
 * assignees, reviewers, milestones, projects, votes, note counts and unresolved threads, then
 * users and namespaces (and, beside them, git's answer for requests that may need a rebase and the
 * head pipelines of requests whose project requires one to succeed).
 */
export class MergeRequestViews {
  constructor(private readonly deps: MergeRequestViewsDeps) {}

  async many(records: readonly MergeRequestRecord[]): Promise<MergeRequestView[]> {
    if (records.length === 0) return [];
    const { deps } = this;
    const ids = records.map((record) => record.id);
    const milestoneIds = records.flatMap((record) => present(record.milestone_id));
    const projectIds = records.flatMap((record) => [record.project_id, ...present(record.source_project_id)]);
    // Two waves of independent reads: on PostgreSQL each wave's statements travel side by side.
    const [labels, assignees, reviewers, milestoneList, projectList, votes, noteCounts, unresolved] = await Promise.all([
      deps.mergeRequests.labelsOf(ids),
      deps.mergeRequests.assigneesOf(ids),
      deps.mergeRequests.reviewersOf(ids),
      milestoneIds.length ? deps.milestones.findByIds(milestoneIds) : Promise.resolve([]),
      deps.projects.findByIds([...new Set(projectIds)]),
      deps.awardEmoji.votesOf(ids, 'MergeRequest'),
      deps.notes.userNoteCounts('MergeRequest', ids),
      deps.notes.unresolvedDiscussionCounts(ids),
    ]);
    const milestones = new Map(milestoneList.map((milestone) => [milestone.id, milestone]));
    const projects = new Map(projectList.map((project) => [project.id, project]));
    const userIds = records.flatMap((record) => [
      record.author_id, ...present(record.closed_by_id), ...present(record.merged_by_id), ...present(record.merge_user_id),
      ...(assignees.get(record.id) ?? []), ...(reviewers.get(record.id) ?? []),
    ]);
    const namespaceIds = [...projectList.map((project) => project.namespace_id), ...milestoneList.flatMap((milestone) => present(milestone.group_id))];
    const [userList, namespaceList, rebaseNeeded, ciChecks] = await Promise.all([
      deps.users.findByIds([...new Set(userIds)]),
      deps.namespaces.findByIds([...new Set(namespaceIds)]),
      needingRebase(deps.repositories, projects, records),
      failingCiChecks(deps.pipelines, projects, records),
    ]);
    const users = new Map(userList.map((user) => [user.id, user]));
    const namespaces = new Map(namespaceList.map((namespace) => [namespace.id, namespace.full_path]));
    const projectPath = (projectId: number) => {
      const project = projects.get(projectId);
      return project ? `${namespaces.get(project.namespace_id) ?? ''}/${project.path}` : '';
    };
    const user = (id: number | null) => (id === null ? null : (users.get(id) ?? null));
    return records.map((record) => {
      const unresolvedDiscussions = unresolved.get(record.id) ?? 0;
      const requiresResolved = projects.get(record.project_id)?.only_allow_merge_if_all_discussions_are_resolved ?? false;
      const milestone = record.milestone_id === null ? undefined : milestones.get(record.milestone_id);
      return {
        record,
        projectPath: projectPath(record.project_id),
        sourceProjectPath: record.source_project_id === null || !projects.has(record.source_project_id) ? null : projectPath(record.source_project_id),
        labels: labels.get(record.id) ?? [],
        milestone: milestone ? { milestone, ownerPath: milestone.project_id !== null ? projectPath(milestone.project_id) : (namespaces.get(milestone.group_id ?? -1) ?? '') } : null,
        author: user(record.author_id),
        assignees: (assignees.get(record.id) ?? []).flatMap((id) => users.get(id) ?? []),
        reviewers: (reviewers.get(record.id) ?? []).flatMap((id) => users.get(id) ?? []),
        closedBy: user(record.closed_by_id),
        mergedBy: user(record.merged_by_id),
        mergeUser: user(record.merged_by_id ?? record.merge_user_id),
        userNotesCount: noteCounts.get(record.id) ?? 0,
        votes: votes.get(record.id) ?? { upvotes: 0, downvotes: 0 },
        unresolvedDiscussions,
        blockingDiscussionsResolved: !requiresResolved || unresolvedDiscussions === 0,
        needsRebase: rebaseNeeded.has(record.id),
        ciCheck: ciChecks.get(record.id) ?? 'passed',
      };
    });
  }

  async one(record: MergeRequestRecord): Promise<MergeRequestView> {
    const [view] = await this.many([record]);
    return view!;
  }
}

/** What observers are told of a request: its record and relations, as stored. */
export function snapshotOf(view: MergeRequestView): MergeRequestSnapshot {
  return { record: view.record, labels: view.labels, assigneeIds: view.assignees.map((user) => user.id), reviewerIds: view.reviewers.map((user) => user.id) };
}
