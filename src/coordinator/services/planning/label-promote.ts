import { accessDenied, GantryError } from '../../../shared/errors.ts';
import { parseRecordId } from '../../../shared/record-ids.ts';
import type { LabelPromotionsStore } from '../../../storage/types-label-promotions.ts';
import type { LabelRecord, LabelsStore } from '../../../storage/types-planning.ts';
import type { NamespacesStore, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import { MAINTAINER } from '../access/levels.ts';
import type { Permissions } from '../access/permissions.ts';
import type { LabelView } from './labels.ts';
import type { PlanningOwners } from './planning-owner.ts';

export interface LabelPromoteDeps {
  owners: Pick<PlanningOwners, 'resolve'>;
  labels: Pick<LabelsStore, 'findById' | 'findByTitles'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  promotions: LabelPromotionsStore;
  permissions: Pick<Permissions, 'groupLevelAtLeast'>;
}

/**
 * `PUT /projects/:id/labels/:label_id/promote`, as GitLab's Labels::PromoteService: a project
 * label becomes a label of the project's group, and the same-titled labels of the group's
 * other projects are merged into it. Needs Reporter on the project (to administer its labels)
 * and Maintainer on the group.
 */
export class LabelPromote {
  constructor(private readonly deps: LabelPromoteDeps) {}

  async promote(projectRef: string, actor: UserRecord, labelRef: string): Promise<LabelView> {
    const owner = await this.deps.owners.resolve({ kind: 'project', ref: projectRef }, actor, 'admin');
    if (owner.kind !== 'project') throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    const label = await this.projectLabel(owner.project, labelRef);
    const group = await this.deps.namespaces.findById(owner.project.namespace_id);
    if (group?.kind !== 'group') throw new GantryError('GANTRY_E_LABEL_PROMOTION_REFUSED', 'Failed to promote project label to group label');
    if (!(await this.deps.permissions.groupLevelAtLeast(group, actor, MAINTAINER))) throw accessDenied();
    const promoted = await this.deps.promotions.promote(label.id, group.id, new Date().toISOString());
    if (!promoted) throw new GantryError('GANTRY_E_LABEL_NOT_FOUND');
    return { label: promoted };
  }

  /** The project's own label by id, or by title (a group label is not promoted: 404). */
  private async projectLabel(project: ProjectRecord, labelRef: string): Promise<LabelRecord> {
    const id = parseRecordId(labelRef);
    if (id !== undefined) {
      const label = id === null ? undefined : await this.deps.labels.findById(id);
      if (label && label.project_id === project.id) return label;
      throw new GantryError('GANTRY_E_LABEL_NOT_FOUND');
    }
    const [label] = await this.deps.labels.findByTitles({ projectIds: [project.id], groupIds: [] }, [labelRef]);
    if (!label) throw new GantryError('GANTRY_E_LABEL_NOT_FOUND');
    return label;
  }
}
