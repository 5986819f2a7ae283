import { mergeRequestRefPath, type MergeRequestInfo } from '../../../../ci/merge-request-variables.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { MilestonesStore } from '../../../../storage/types-planning.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UsersStore } from '../../../../storage/types.ts';
import { projectFullPath } from '../../namespaces/project-full-path.ts';

export interface MergeRequestInfoDeps {
  mergeRequests: Pick<MergeRequestsStore, 'labelsOf' | 'assigneesOf'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  users: Pick<UsersStore, 'findByIds'>;
  milestones: Pick<MilestonesStore, 'findById'>;
  /** Base URL of the instance (the project URLs). */
  externalUrl: string;
}

/**
 * What a merge request pipeline knows of its request, read when the pipeline is created and
 * again when each job is handed out (GitLab reads the request then too: a new title shows).
 */
export class MergeRequestInfos {
  constructor(private readonly deps: MergeRequestInfoDeps) {}

  async of(request: MergeRequestRecord, target: ProjectRecord): Promise<MergeRequestInfo> {
    const source = request.source_project_id === null || request.source_project_id === target.id ? target : await this.deps.projects.findById(request.source_project_id);
    const [labels, assigneeIds, milestone, targetPath, sourcePath] = await Promise.all([
      this.deps.mergeRequests.labelsOf([request.id]),
      this.deps.mergeRequests.assigneesOf([request.id]),
      request.milestone_id === null ? undefined : this.deps.milestones.findById(request.milestone_id),
      projectFullPath(this.deps.namespaces, target),
      source ? projectFullPath(this.deps.namespaces, source) : Promise.resolve(null),
    ]);
    const ids = assigneeIds.get(request.id) ?? [];
    const usernames = new Map((ids.length > 0 ? await this.deps.users.findByIds(ids) : []).map((user) => [user.id, user.username]));
    const base = this.deps.externalUrl.replace(/\/+$/, '');
    // A deleted fork leaves the request without a source project: its variables name the target's.
    const sourceProjectPath = sourcePath ?? targetPath;
    return {
      id: request.id,
      iid: request.iid,
      refPath: mergeRequestRefPath(request.iid),
      projectId: target.id,
      projectPath: targetPath,
      projectUrl: `${base}/${targetPath}`,
      sourceProjectId: source?.id ?? target.id,
      sourceProjectPath,
      sourceProjectUrl: `${base}/${sourceProjectPath}`,
      sourceBranch: request.source_branch,
      targetBranch: request.target_branch,
      title: request.title,
      labels: (labels.get(request.id) ?? []).map((label) => label.title),
      milestone: milestone?.title ?? null,
      assignees: ids.flatMap((id) => usernames.get(id) ?? []),
      diffBaseSha: request.base_sha,
    };
  }
}
