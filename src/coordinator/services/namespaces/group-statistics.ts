import type { NamespacesStore, ProjectsStore } from '../../../storage/types.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';

/** Storage figures of a group and its subgroups, in bytes. */
export interface GroupStatistics {
  storage_size: number;
  repository_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
}

/** Storage sizes per group (RepositoryGroupStatistics; artifacts add theirs when they are stored). */
export interface GroupStatisticsSource {
  forGroups(groupIds: readonly number[]): Promise<Map<number, GroupStatistics>>;
}

export interface GroupStatisticsDeps {
  namespaces: Pick<NamespacesStore, 'descendantIds'>;
  projects: Pick<ProjectsStore, 'listByNamespaces'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
}

/**
 * Group storage figures for administrators (`GET /groups?statistics=true`): the sizes of the
 * repositories of every project in the group and its subgroups. LFS objects and job
 * artifacts are not stored by this coordinator yet, so those stay 0.
 */
export class RepositoryGroupStatistics implements GroupStatisticsSource {
  constructor(private readonly deps: GroupStatisticsDeps) {}

  async forGroups(groupIds: readonly number[]): Promise<Map<number, GroupStatistics>> {
    const { namespaces, projects, repositories } = this.deps;
    const out = new Map<number, GroupStatistics>();
    for (const groupId of groupIds) {
      const namespaceIds = [groupId, ...(await namespaces.descendantIds(groupId))];
      let repositorySize = 0;
      for (const project of await projects.listByNamespaces(namespaceIds)) {
        if (project.pending_delete || !(await repositories.exists(project.id))) continue;
        repositorySize += await repositories.open(project.id).sizeInBytes();
      }
      out.set(groupId, { storage_size: repositorySize, repository_size: repositorySize, lfs_objects_size: 0, job_artifacts_size: 0 });
    }
    return out;
  }
}
