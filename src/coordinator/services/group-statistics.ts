import type { CoordinatorContext } from '../context.ts';
import type { GroupStatisticsJson } from '../http/serializers/groups.ts';
import type { GroupStatisticsSource } from './groups.ts';

/**
 * Group storage figures for administrators (`GET /groups?statistics=true`): the sizes of the
 * repositories of every project in the group and its subgroups. LFS objects and job
 * artifacts are not stored by this coordinator yet, so those stay 0.
 */
export class RepositoryGroupStatistics implements GroupStatisticsSource {
  constructor(private readonly context: CoordinatorContext) {}

  async forGroups(groupIds: readonly number[]): Promise<Map<number, GroupStatisticsJson>> {
    const { stores, repositories } = this.context;
    const out = new Map<number, GroupStatisticsJson>();
    for (const groupId of groupIds) {
      const namespaceIds = [groupId, ...(await stores.namespaces.descendantIds(groupId))];
      let repositorySize = 0;
      for (const project of await stores.projects.listByNamespaces(namespaceIds)) {
        if (project.pending_delete || !(await repositories.exists(project.id))) continue;
        repositorySize += await repositories.open(project.id).sizeInBytes();
      }
      out.set(groupId, { storage_size: repositorySize, repository_size: repositorySize, lfs_objects_size: 0, job_artifacts_size: 0 });
    }
    return out;
  }
}
