import { GantryError, validationFailed } from '../../../shared/errors.ts';
import { parseRecordId } from '../../../shared/record-ids.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { ProjectsStore } from '../../../storage/types.ts';
import type { IssuesStore, LabelChanges, LabelRecord, LabelsStore } from '../../../storage/types-planning.ts';
import type { MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { NamespacesStore } from '../../../storage/types.ts';
import { actorProjectAccess, type ProjectScopeDeps } from '../namespaces/project-scope.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { labelColor } from './label-colors.ts';
import { ownOnly, withAncestors, type OwnerRef, type PlanningOwner, type PlanningOwners } from './planning-owner.ts';

export interface LabelView {
  label: LabelRecord;
  /** Issue and open merge request counts, when asked for (`with_counts`). */
  counts?: { opened: number; closed: number; openMergeRequests: number };
}

/** A label as a path names it (`:label_id`: an id, or a name) or as `name=` does (always a name). */
export type LabelRef = { ref: string } | { name: string };

export interface LabelInput {
  name?: string;
  color?: string;
  /** null clears it. */
  description?: string | null;
  priority?: number | null;
}

export interface LabelsServiceDeps extends ProjectScopeDeps {
  labels: LabelsStore;
  issues: Pick<IssuesStore, 'countsByLabel'>;
  mergeRequests: Pick<MergeRequestsStore, 'openCountsByLabel'>;
  projects: Pick<ProjectsStore, 'listByNamespaces'>;
  namespaces: ProjectScopeDeps['namespaces'] & Pick<NamespacesStore, 'descendantIds'>;
  owners: Pick<PlanningOwners, 'resolve'>;
  planningPermissions: Pick<PlanningPermissions, 'confidentialAccess' | 'confidentialAccessIn'>;
  permissions: Pick<Permissions, 'readableProjectIds'>;
}

const MAX_TITLE = 255;

/**
 * Labels of projects and groups: whoever reads the project or group reads them (a project's
 * list shows its groups' labels too); Reporters and up create, change and delete them. A
 * title is unique within its project or group and holds no comma.
 */
export class LabelsService {
  constructor(private readonly deps: LabelsServiceDeps) {}

  async list(ownerRef: OwnerRef, actor: Actor, query: { search?: string; withCounts: boolean; includeAncestorGroups: boolean }, page: Page): Promise<Paged<LabelView>> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'read');
    const scope = query.includeAncestorGroups ? withAncestors(owner) : ownOnly(owner);
    const { items, total } = await this.deps.labels.list(scope, query.search || undefined, page);
    if (!query.withCounts) return { items: items.map((label) => ({ label })), total };
    const { issueCounts, mergeRequestCounts } = await this.counts(owner, actor, items);
    const countsOf = (labelId: number) => ({ ...(issueCounts.get(labelId) ?? { opened: 0, closed: 0 }), openMergeRequests: mergeRequestCounts.get(labelId) ?? 0 });
    return { items: items.map((label) => ({ label, counts: countsOf(label.id) })), total };
  }

  async get(ownerRef: OwnerRef, actor: Actor, labelRef: LabelRef): Promise<LabelView> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'read');
    return { label: await this.find(owner, labelRef, withAncestors(owner)) };
  }

  async create(ownerRef: OwnerRef, actor: Actor, input: LabelInput & { name: string; color: string }): Promise<LabelView> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'admin');
    const fields = this.validate(input);
    const existing = await this.deps.labels.findByTitles(ownOnly(owner), [input.name]);
    if (existing.length > 0) throw new GantryError('GANTRY_E_ALREADY_EXISTS', 'Label already exists', { resource: 'Label' });
    const now = new Date().toISOString();
    try {
      const label = await this.deps.labels.create({
        project_id: owner.kind === 'project' ? owner.project.id : null,
        group_id: owner.kind === 'group' ? owner.group.id : null,
        title: input.name,
        color: fields.color ?? input.color,
        description: input.description ?? null,
        priority: input.priority ?? null,
        created_at: now,
        updated_at: now,
      });
      return { label };
    } catch (error) {
      if (isUniqueViolation(error)) throw new GantryError('GANTRY_E_ALREADY_EXISTS', 'Label already exists', { resource: 'Label' });
      throw error;
    }
  }

  async update(ownerRef: OwnerRef, actor: Actor, labelRef: LabelRef, input: LabelInput): Promise<LabelView> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'admin');
    const label = await this.find(owner, labelRef, ownOnly(owner));
    const fields = this.validate(input);
    if (input.name !== undefined && input.name !== label.title) {
      const holders = await this.deps.labels.findByTitles(ownOnly(owner), [input.name]);
      if (holders.length > 0) throw validationFailed({ title: ['has already been taken'] });
    }
    try {
      const updated = await this.deps.labels.update(label.id, { ...fields, title: input.name, updated_at: new Date().toISOString() });
      if (!updated) throw new GantryError('GANTRY_E_LABEL_NOT_FOUND');
      return { label: updated };
    } catch (error) {
      if (isUniqueViolation(error)) throw validationFailed({ title: ['has already been taken'] });
      throw error;
    }
  }

  async remove(ownerRef: OwnerRef, actor: Actor, labelRef: LabelRef): Promise<void> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'admin');
    const label = await this.find(owner, labelRef, ownOnly(owner));
    if (!(await this.deps.labels.delete(label.id))) throw new GantryError('GANTRY_E_LABEL_NOT_FOUND');
  }

  /** GitLab's Label validations for the fields given; answers the colour to store. */
  private validate(input: LabelInput): Pick<LabelChanges, 'color' | 'description' | 'priority'> {
    const errors: Record<string, string[]> = {};
    if (input.name !== undefined) {
      const title = input.name;
      if (title.trim() === '') errors.title = ["can't be blank"];
      else if (title.includes(',')) errors.title = ['is invalid'];
      else if ([...title].length > MAX_TITLE) errors.title = [`is too long (maximum is ${MAX_TITLE} characters)`];
    }
    const color = input.color === undefined ? undefined : labelColor(input.color);
    if (input.color !== undefined && color === undefined) errors.color = ['must be a valid color code'];
    if (input.priority !== undefined && input.priority !== null && input.priority < 0) errors.priority = ['must be greater than or equal to 0'];
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    return { color, description: input.description, priority: input.priority };
  }

  /**
   * Digits name an id; anything else a title, the owner's own label first, then those of the
   * groups above it. (GitLab tries a title when no id matches; here a title made of digits is
   * reached by its id.)
   */
  private async find(owner: PlanningOwner, labelRef: LabelRef, scope: { projectIds: number[]; groupIds: number[] }): Promise<LabelRecord> {
    const id = 'ref' in labelRef ? parseRecordId(labelRef.ref) : undefined;
    if (id !== undefined) {
      const label = id === null ? undefined : await this.deps.labels.findById(id);
      const belongs = label && (scope.projectIds.includes(label.project_id ?? -1) || scope.groupIds.includes(label.group_id ?? -1));
      if (label && belongs) return label;
      throw new GantryError('GANTRY_E_LABEL_NOT_FOUND');
    }
    const byTitle = await this.deps.labels.findByTitles(scope, ['ref' in labelRef ? labelRef.ref : labelRef.name]);
    const own = byTitle.find((label) => (owner.kind === 'project' ? label.project_id === owner.project.id : label.group_id === owner.group.id));
    const nearest = own ?? scope.groupIds.map((groupId) => byTitle.find((label) => label.group_id === groupId)).find((label) => label !== undefined);
    if (!nearest) throw new GantryError('GANTRY_E_LABEL_NOT_FOUND');
    return nearest;
  }

  /** Opened and closed issues, and open merge requests, per label, among those of the project (or of the group's projects) the caller sees. */
  private async counts(owner: PlanningOwner, actor: Actor, labels: readonly LabelRecord[]) {
    const labelIds = labels.map((label) => label.id);
    const { issues, mergeRequests, planningPermissions: rules } = this.deps;
    if (owner.kind === 'project') {
      const [issueCounts, mergeRequestCounts] = await Promise.all([
        issues.countsByLabel(labelIds, [owner.project.id], await rules.confidentialAccessIn(owner.project, actor)),
        mergeRequests.openCountsByLabel(labelIds, [owner.project.id]),
      ]);
      return { issueCounts, mergeRequestCounts };
    }
    const namespaceIds = [owner.group.id, ...(await this.deps.namespaces.descendantIds(owner.group.id))];
    const projects = await this.deps.projects.listByNamespaces(namespaceIds);
    const projectIds = [...(await this.deps.permissions.readableProjectIds(projects, actor))];
    const [issueCounts, mergeRequestCounts] = await Promise.all([
      issues.countsByLabel(labelIds, projectIds, rules.confidentialAccess(actor, await actorProjectAccess(this.deps, actor))),
      mergeRequests.openCountsByLabel(labelIds, projectIds),
    ]);
    return { issueCounts, mergeRequestCounts };
  }
}
