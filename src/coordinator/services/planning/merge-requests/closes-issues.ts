import type { GitRepository, RepositoryManager } from '../../../../storage/git/types.ts';
import type { MergeRequestRecord } from '../../../../storage/types-merge-requests.ts';
import type { IssueRecord } from '../../../../storage/types-planning.ts';
import type { NamespacesStore, ProjectRecord } from '../../../../storage/types.ts';
import type { Actor } from '../../access/permissions.ts';
import { CommitReferenceTargets, type CommitReferenceTargetsDeps, type ReferencedIssue } from '../commit-references-targets.ts';
import { PROCESS_COMMIT_LIMIT } from '../commit-references.ts';
import type { IssueView, IssueViews } from '../issue-views.ts';
import { parseCommitReferences } from '../reference-parser.ts';
import type { MergeRequestMerged, MergeRequestObserver } from './observers.ts';
import type { VisibleMergeRequests } from './visible.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

export interface ClosesIssuesDeps extends CommitReferenceTargetsDeps {
  visible: Pick<VisibleMergeRequests, 'find'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  views: Pick<IssueViews, 'many'>;
}

/**
 * The issues a merge request closes (GitLab's `closes_issues`): those its title, description
 * and commit messages name with the closing pattern (`Closes #1`, `fixes g/p#2` …), when it
 * targets the project's default branch, that the asker may see. On merge, each open one the
 * merger may update is closed with "closed via merge request !<iid>".
 */
export class ClosesIssues implements MergeRequestObserver {
  private readonly targets: CommitReferenceTargets;

  constructor(private readonly deps: ClosesIssuesDeps) {
    this.targets = new CommitReferenceTargets(deps);
  }

  /** `GET .../merge_requests/:iid/closes_issues`. */
  async list(projectRef: string, actor: Actor, iid: number): Promise<IssueView[]> {
    const { project, mergeRequest } = await this.deps.visible.find(projectRef, actor, iid);
    const closing = await this.closing(project, mergeRequest, actor);
    return this.deps.views.many(closing.map((target) => target.issue));
  }

  async mergeRequestMerged({ project, mergeRequest, actor }: MergeRequestMerged): Promise<void> {
    const reference = await this.referenceOf(mergeRequest, project);
    for (const target of await this.closing(project, mergeRequest, actor)) {
      if (target.issue.state !== 'opened' || !(await this.targets.mayClose(target, actor))) continue;
      await this.deps.systemNotes.add({ type: 'Issue', id: target.issue.id, project_id: target.project.id }, actor.id, `closed via merge request ${reference(target.project)}`);
      await this.deps.references.closeOpenIssue(target.issue.id, actor.id, new Date().toISOString());
    }
  }

  /** The issues `actor` sees that the request closes on merge, by project and iid. */
  async closing(project: ProjectRecord, mergeRequest: MergeRequestRecord, actor: Actor): Promise<ReferencedIssue[]> {
    if (project.default_branch === null || mergeRequest.target_branch !== project.default_branch) return [];
    const messages = [mergeRequest.title, mergeRequest.description ?? '', ...(await this.commitMessages(project, mergeRequest))];
    const projectPath = await projectFullPath(this.deps.namespaces, project);
    const found = new Map<number, ReferencedIssue>();
    for (const message of messages) {
      for (const reference of parseCommitReferences(message).closing) {
        const target = await this.targets.resolve(project, projectPath, reference, actor);
        if (target) found.set(target.issue.id, target);
      }
    }
    return [...found.values()].sort((a, b) => compareIssues(a.issue, b.issue));
  }

  /**
   * The request's own commits: source tip not on the target while open; once merged, those the
   * merge commit brought in (its second parent's side). A fast-forwarded or squashed request
   * has no such boundary left: its description and title still count.
   */
  private async commitMessages(project: ProjectRecord, mergeRequest: MergeRequestRecord): Promise<string[]> {
    if (!(await this.deps.repositories.exists(project.id))) return [];
    const repository = this.deps.repositories.open(project.id);
    const range = await this.commitRange(repository, mergeRequest);
    if (!range) return [];
    const commits = await repository.newCommits(range.tip, range.excluding, PROCESS_COMMIT_LIMIT);
    return commits.map((commit) => commit.message);
  }

  private async commitRange(repository: GitRepository, mergeRequest: MergeRequestRecord): Promise<{ tip: string; excluding: string[] } | null> {
    if (mergeRequest.state === 'merged') {
      const merge = mergeRequest.merge_commit_sha ? await repository.commit(mergeRequest.merge_commit_sha) : null;
      const [first, second] = merge?.parent_ids ?? [];
      return first && second ? { tip: second, excluding: [first] } : null;
    }
    const sourceRef = mergeRequest.source_project_id === mergeRequest.project_id ? `refs/heads/${mergeRequest.source_branch}` : `refs/merge-requests/${mergeRequest.iid}/head`;
    const tip = await repository.resolveCommit(sourceRef);
    return tip ? { tip, excluding: [`refs/heads/${mergeRequest.target_branch}`] } : null;
  }

  /** `!1` from the same project, `p!1` from the same namespace, `g/p!1` from elsewhere (GitLab's to_reference). */
  private async referenceOf(mergeRequest: MergeRequestRecord, project: ProjectRecord): Promise<(from: ProjectRecord) => string> {
    const fullPath = await projectFullPath(this.deps.namespaces, project);
    return (from) => {
      if (from.id === project.id) return `!${mergeRequest.iid}`;
      if (from.namespace_id === project.namespace_id) return `${project.path}!${mergeRequest.iid}`;
      return `${fullPath}!${mergeRequest.iid}`;
    };
  }
}

function compareIssues(a: IssueRecord, b: IssueRecord): number {
  return a.project_id - b.project_id || a.iid - b.iid;
}
