import { GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { MilestoneChanges, MilestoneListFilter, MilestoneRecord, MilestonesStore, MilestoneState } from '../../../storage/types-planning.ts';
import type { NamespacesStore } from '../../../storage/types.ts';
import type { Actor } from '../access/permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { ownOnly, withAncestors, type OwnerRef, type PlanningOwner, type PlanningOwners } from './planning-owner.ts';

/** A milestone and where it belongs (for its web URL). */
export interface MilestoneView {
  milestone: MilestoneRecord;
  /** The full path of its project or group. */
  ownerPath: string;
}

export interface MilestoneInput {
  title?: string;
  /** null clears it (as do the dates). */
  description?: string | null;
  dueDate?: string | null;
  startDate?: string | null;
  stateEvent?: 'close' | 'activate';
}

export interface MilestonesServiceDeps {
  milestones: MilestonesStore;
  namespaces: Pick<NamespacesStore, 'findByIds' | 'descendantIds'>;
  owners: Pick<PlanningOwners, 'resolve'>;
}

const MAX_TITLE = 255;
/** GitLab's Milestone#uniqueness_of_title. */
const TITLE_TAKEN = 'already being used for another group or project milestone.';
const STATE_AFTER: Record<'close' | 'activate', MilestoneState> = { close: 'closed', activate: 'active' };

/**
 * Milestones of projects and groups (iid per project or group): whoever reads the project or
 * group reads them; Reporters and up create, change, close, reopen and delete them. A title is
 * unique across a hierarchy, as GitLab's Milestone#uniqueness_of_title: a project milestone's
 * among its project's and its groups' milestones, a group milestone's among those of the groups
 * above and below it and of all their projects.
 */
export class MilestonesService {
  constructor(private readonly deps: MilestonesServiceDeps) {}

  /** With `includeParents` (include_ancestors), `iids` is ignored, as GitLab's MilestonesFinder ignores it. */
  async list(ownerRef: OwnerRef, actor: Actor, filter: MilestoneListFilter & { includeParents: boolean }, page: Page): Promise<Paged<MilestoneView>> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'read');
    const scope = filter.includeParents ? withAncestors(owner) : ownOnly(owner);
    const { includeParents, ...rest } = filter;
    const storeFilter: MilestoneListFilter = { ...rest, iids: includeParents ? undefined : rest.iids, search: rest.search || undefined };
    const { items, total } = await this.deps.milestones.list(scope, storeFilter, page);
    const parentIds = items.flatMap((milestone) => (milestone.group_id !== null && owner.ancestorGroupIds.includes(milestone.group_id) ? [milestone.group_id] : []));
    const parentPaths = new Map((parentIds.length ? await this.deps.namespaces.findByIds(parentIds) : []).map((group) => [group.id, group.full_path]));
    return { items: items.map((milestone) => ({ milestone, ownerPath: parentPaths.get(milestone.group_id ?? -1) ?? owner.fullPath })), total };
  }

  async get(ownerRef: OwnerRef, actor: Actor, milestoneId: number): Promise<MilestoneView> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'read');
    return this.view(owner, await this.find(owner, milestoneId));
  }

  /** The milestone of the owner (for its issues list); undefined is a 404. */
  async resolve(ownerRef: OwnerRef, actor: Actor, milestoneId: number): Promise<{ owner: PlanningOwner; milestone: MilestoneRecord }> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'read');
    return { owner, milestone: await this.find(owner, milestoneId) };
  }

  async create(ownerRef: OwnerRef, actor: Actor, input: MilestoneInput & { title: string }): Promise<MilestoneView> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'admin');
    this.validate(input, {});
    await this.refuseTakenTitle(owner, input.title);
    const now = new Date().toISOString();
    try {
      const milestone = await this.deps.milestones.create({
        project_id: owner.kind === 'project' ? owner.project.id : null,
        group_id: owner.kind === 'group' ? owner.group.id : null,
        title: input.title,
        description: input.description ?? null,
        state: 'active',
        due_date: input.dueDate ?? null,
        start_date: input.startDate ?? null,
        created_at: now,
        updated_at: now,
      });
      return this.view(owner, milestone);
    } catch (error) {
      if (isUniqueViolation(error)) throw validationFailed({ title: [TITLE_TAKEN] });
      throw error;
    }
  }

  async update(ownerRef: OwnerRef, actor: Actor, milestoneId: number, input: MilestoneInput): Promise<MilestoneView> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'admin');
    const milestone = await this.find(owner, milestoneId);
    this.validate(input, milestone);
    if (input.title !== undefined && input.title !== milestone.title) await this.refuseTakenTitle(owner, input.title);
    const changes: MilestoneChanges = {
      title: input.title,
      description: input.description,
      due_date: input.dueDate,
      start_date: input.startDate,
      state: input.stateEvent && STATE_AFTER[input.stateEvent],
      updated_at: new Date().toISOString(),
    };
    try {
      const updated = await this.deps.milestones.update(milestone.id, changes);
      if (!updated) throw new GantryError('GANTRY_E_MILESTONE_RECORD_NOT_FOUND');
      return this.view(owner, updated);
    } catch (error) {
      if (isUniqueViolation(error)) throw validationFailed({ title: [TITLE_TAKEN] });
      throw error;
    }
  }

  /** Its issues keep no milestone. */
  async remove(ownerRef: OwnerRef, actor: Actor, milestoneId: number): Promise<void> {
    const owner = await this.deps.owners.resolve(ownerRef, actor, 'admin');
    const milestone = await this.find(owner, milestoneId);
    if (!(await this.deps.milestones.delete(milestone.id))) throw new GantryError('GANTRY_E_MILESTONE_RECORD_NOT_FOUND');
  }

  /** GitLab's Milestone validations: a title, and no due date before the start date (given or kept). */
  private validate(input: MilestoneInput, current: Partial<Pick<MilestoneRecord, 'start_date' | 'due_date'>>): void {
    const errors: Record<string, string[]> = {};
    if (input.title !== undefined) {
      if (input.title.trim() === '') errors.title = ["can't be blank"];
      else if ([...input.title].length > MAX_TITLE) errors.title = [`is too long (maximum is ${MAX_TITLE} characters)`];
    }
    const start = input.startDate === undefined ? current.start_date : input.startDate;
    const due = input.dueDate === undefined ? current.due_date : input.dueDate;
    if (start && due && due <= start) errors.due_date = ['must be greater than start date'];
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
  }

  private async refuseTakenTitle(owner: PlanningOwner, title: string): Promise<void> {
    const scope =
      owner.kind === 'project'
        ? { projectIds: [owner.project.id], groupIds: owner.ancestorGroupIds, projectNamespaceIds: [] }
        : await this.groupHierarchy(owner.group.id, owner.ancestorGroupIds);
    if (await this.deps.milestones.titleTaken(scope, title)) throw validationFailed({ title: [TITLE_TAKEN] });
  }

  /** A group, the groups above and below it, and the projects of it and those below it. */
  private async groupHierarchy(groupId: number, ancestorIds: readonly number[]): Promise<{ projectIds: number[]; groupIds: number[]; projectNamespaceIds: number[] }> {
    const subtree = [groupId, ...(await this.deps.namespaces.descendantIds(groupId))];
    return { projectIds: [], groupIds: [...subtree, ...ancestorIds], projectNamespaceIds: subtree };
  }

  private async find(owner: PlanningOwner, milestoneId: number): Promise<MilestoneRecord> {
    const milestone = await this.deps.milestones.findById(milestoneId);
    const belongs = milestone && (owner.kind === 'project' ? milestone.project_id === owner.project.id : milestone.group_id === owner.group.id);
    if (!milestone || !belongs) throw new GantryError('GANTRY_E_MILESTONE_RECORD_NOT_FOUND');
    return milestone;
  }

  private view(owner: PlanningOwner, milestone: MilestoneRecord): MilestoneView {
    return { milestone, ownerPath: owner.fullPath };
  }
}
