import { GantryError } from '../../../shared/errors.ts';
import type { MilestoneIssueCounts, MilestoneRecord, MilestonesStore } from '../../../storage/types-planning.ts';
import type { NamespacesStore, ProjectRecord } from '../../../storage/types.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { Actor } from '../access/permissions.ts';
import type { MilestoneView } from '../planning/milestones.ts';

/** A milestone of a release, with GitLab's `issue_stats` (MilestoneWithStats). */
export interface ReleaseMilestoneView extends MilestoneView {
  issueStats: MilestoneIssueCounts;
}

export interface ReleaseMilestonesDeps {
  milestones: Pick<MilestonesStore, 'findByTitles' | 'findByIds' | 'issueCounts'>;
  namespaces: Pick<NamespacesStore, 'findByIds'>;
  planningPermissions: Pick<PlanningPermissions, 'canReadProjectPlanning'>;
}

/**
 * The milestones a release names by title (GitLab's Releases::BaseService#milestones): the
 * project's own and those of the group it sits in directly, in any state. GitLab offers the
 * group's milestones in its Premium tier only, and never those of the groups further up.
 */
export class ReleaseMilestones {
  constructor(private readonly deps: ReleaseMilestonesDeps) {}

  /** The ids of the titled milestones; any unknown title is an error naming every unknown one. */
  async resolve(project: ProjectRecord, titles: readonly string[]): Promise<number[]> {
    // A project in a user's namespace has no group: no milestone has that namespace's id as group_id.
    const found = await this.deps.milestones.findByTitles({ projectIds: [project.id], groupIds: [project.namespace_id] }, titles);
    const known = new Set(found.map((milestone) => milestone.title));
    const unknown = titles.filter((title) => !known.has(title));
    if (unknown.length > 0) throw new GantryError('GANTRY_E_MILESTONE_NOT_FOUND', `Milestone(s) not found: ${unknown.join(', ')}`);
    return found.map((milestone) => milestone.id);
  }

  /**
   * Each release's milestones as the caller sees them: none for a caller who may not read the
   * project's milestones (GitLab's Release entity leaves them out then).
   */
  async views(project: ProjectRecord, projectPath: string, actor: Actor, idsByRelease: ReadonlyMap<number, readonly number[]>): Promise<Map<number, ReleaseMilestoneView[]>> {
    const views = new Map<number, ReleaseMilestoneView[]>();
    const ids = [...new Set([...idsByRelease.values()].flat())];
    if (ids.length === 0 || !(await this.deps.planningPermissions.canReadProjectPlanning(project, actor))) return views;
    const milestones = new Map((await this.deps.milestones.findByIds(ids)).map((milestone) => [milestone.id, milestone]));
    const counts = await this.deps.milestones.issueCounts(ids);
    const groupIds = [...new Set([...milestones.values()].flatMap((milestone) => (milestone.group_id === null ? [] : [milestone.group_id])))];
    const groupPaths = new Map((groupIds.length ? await this.deps.namespaces.findByIds(groupIds) : []).map((group) => [group.id, group.full_path]));
    const ownerPath = (milestone: MilestoneRecord): string => (milestone.group_id === null ? projectPath : (groupPaths.get(milestone.group_id) ?? ''));
    for (const [releaseId, releaseMilestoneIds] of idsByRelease) {
      const found = releaseMilestoneIds.flatMap((id) => {
        const milestone = milestones.get(id);
        return milestone ? [{ milestone, ownerPath: ownerPath(milestone), issueStats: counts.get(id) ?? { total: 0, closed: 0 } }] : [];
      });
      views.set(releaseId, found);
    }
    return views;
  }
}
