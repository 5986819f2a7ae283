import { accessDenied, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { CiVariableType } from '../../../storage/types-ci.ts';
import { INSTANCE_VARIABLES_OWNER, type CiVariableChanges, type CiVariableRecord, type CiVariablesStore } from '../../../storage/types-ci-settings.ts';
import type { NamespaceRecord, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import {
  descriptionErrors,
  environmentScopeErrors,
  hiddenUpdateErrors,
  INSTANCE_LIMIT_REACHED,
  INSTANCE_VALUE_TOO_LONG,
  INSTANCE_VARIABLES_MAX,
  keyErrors,
  keyTaken,
  valueErrors,
  type FieldErrors,
} from './variable-rules.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import { pageOfList, type Page, type Paged } from '../repository/pages.ts';

export interface NewVariable {
  key: string;
  value: string;
  variableType?: CiVariableType;
  protected?: boolean;
  masked?: boolean;
  /** Project variables only; `*` when absent. */
  environmentScope?: string;
  raw?: boolean;
  description?: string | null;
  /** `masked_and_hidden` (project and group variables): hidden and masked, whatever `masked` says. */
  maskedAndHidden?: boolean;
}

export interface VariableChanges {
  value?: string;
  variableType?: CiVariableType;
  protected?: boolean;
  masked?: boolean;
  raw?: boolean;
  description?: string | null;
}

/** Which of several same-key variables a request means (`filter[environment_scope]`); project variables only. */
export interface VariableFilter {
  environmentScope?: string;
}

const ALL_ENVIRONMENTS = '*';

/** Where the instance's variables differ from a project's or a group's, as GitLab's Ci::InstanceVariable does. */
interface OwnerRules {
  /** The `404 <resource> Not Found` GitLab names for this owner's variables (`Variable` when absent). */
  notFoundResource?: string;
  /** Ci::HidableVariable: project and group variables may be created hidden; the instance's may not. */
  hidable: boolean;
  valueTooLong?: string;
  /** At most `maximum` variables: a create past it is refused with `reached`. */
  countLimit?: { maximum: number; reached: FieldErrors };
}

const PROJECT_RULES: OwnerRules = { hidable: true };
const GROUP_RULES: OwnerRules = { notFoundResource: 'GroupVariable', hidable: true };
const INSTANCE_RULES: OwnerRules = {
  notFoundResource: 'InstanceVariable',
  hidable: false,
  valueTooLong: INSTANCE_VALUE_TOO_LONG,
  countLimit: { maximum: INSTANCE_VARIABLES_MAX, reached: INSTANCE_LIMIT_REACHED },
};

/**
 * The variables of one owner (a project, a group or the instance) in one store: GitLab's
 * validations, uniqueness by key and environment scope, and picking a variable among same-key ones.
 */
class OwnedVariables {
  constructor(
    private readonly store: CiVariablesStore,
    private readonly ownerId: number,
    /** Whether variables have environment scopes (projects) or are all `*` (groups, the instance). */
    private readonly scoped: boolean,
    private readonly rules: OwnerRules,
  ) {}

  private notFound(): GantryError {
    const { notFoundResource } = this.rules;
    return new GantryError('GANTRY_E_VARIABLE_NOT_FOUND', undefined, notFoundResource === undefined ? {} : { resource: notFoundResource });
  }

  async page(page: Page): Promise<Paged<CiVariableRecord>> {
    return pageOfList(await this.store.list(this.ownerId), page);
  }

  /** The variable of `key` (in the filter's scope): 404 when none, 409 when several scopes hold the key and no filter says which. */
  async find(key: string, filter: VariableFilter): Promise<CiVariableRecord> {
    const scope = this.scoped ? filter.environmentScope : ALL_ENVIRONMENTS;
    const matches = (await this.store.list(this.ownerId)).filter((variable) => variable.key === key && (scope === undefined || variable.environment_scope === scope));
    if (matches.length > 1) {
      throw new GantryError('GANTRY_E_VARIABLE_AMBIGUOUS', "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'");
    }
    const [variable] = matches;
    if (!variable) throw this.notFound();
    return variable;
  }

  async create(input: NewVariable): Promise<CiVariableRecord> {
    // Ci::ChangeVariableService: `masked_and_hidden` makes the variable hidden and masked.
    const hidden = this.rules.hidable && input.maskedAndHidden === true;
    const variable: CiVariableRecord = {
      key: input.key,
      value: input.value,
      variable_type: input.variableType ?? 'env_var',
      protected: input.protected ?? false,
      masked: hidden || (input.masked ?? false),
      environment_scope: this.scoped ? (input.environmentScope ?? ALL_ENVIRONMENTS) : ALL_ENVIRONMENTS,
      raw: input.raw ?? false,
      description: input.description ?? null,
      hidden,
    };
    const errors: FieldErrors = keyErrors(variable.key);
    valueErrors(variable.value, variable.masked, errors, this.rules.valueTooLong);
    descriptionErrors(variable.description, errors);
    if (this.scoped) environmentScopeErrors(variable.environment_scope, errors);
    if (Object.keys(errors).length === 0 && (await this.store.find(this.ownerId, variable.key, variable.environment_scope))) {
      Object.assign(errors, keyTaken(variable.key));
    }
    const { countLimit } = this.rules;
    if (countLimit && (await this.store.list(this.ownerId)).length >= countLimit.maximum) Object.assign(errors, countLimit.reached);
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    try {
      return await this.store.create(this.ownerId, variable, new Date().toISOString());
    } catch (error) {
      // Another request created the same key and scope meanwhile.
      if (isUniqueViolation(error)) throw validationFailed(keyTaken(variable.key));
      throw error;
    }
  }

  async update(key: string, filter: VariableFilter, changes: VariableChanges): Promise<CiVariableRecord> {
    const current = await this.find(key, filter);
    const masked = changes.masked ?? current.masked;
    const errors = valueErrors(changes.value ?? current.value, masked, {}, this.rules.valueTooLong);
    if (changes.description !== undefined) descriptionErrors(changes.description, errors);
    hiddenUpdateErrors(current.hidden, current.masked, changes.masked, errors);
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const stored: CiVariableChanges = {
      value: changes.value,
      variable_type: changes.variableType,
      protected: changes.protected,
      masked: changes.masked,
      raw: changes.raw,
      description: changes.description,
    };
    const updated = await this.store.update(this.ownerId, current.key, current.environment_scope, stored, new Date().toISOString());
    if (!updated) throw this.notFound();
    return updated;
  }

  async remove(key: string, filter: VariableFilter): Promise<void> {
    const current = await this.find(key, filter);
    if (!(await this.store.delete(this.ownerId, current.key, current.environment_scope))) throw this.notFound();
  }
}

export interface ProjectVariablesServiceDeps {
  variables: CiVariablesStore;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canManageProjectCiSettings'>;
}

/** `/projects/:id/variables`: Maintainers manage a project's CI variables; others get 403, non-readers 404. */
export class ProjectVariablesService {
  constructor(private readonly deps: ProjectVariablesServiceDeps) {}

  async list(projectRef: string, actor: UserRecord, page: Page): Promise<Paged<CiVariableRecord>> {
    return (await this.of(projectRef, actor)).page(page);
  }

  async get(projectRef: string, actor: UserRecord, key: string, filter: VariableFilter): Promise<CiVariableRecord> {
    return (await this.of(projectRef, actor)).find(key, filter);
  }

  async create(projectRef: string, actor: UserRecord, input: NewVariable): Promise<CiVariableRecord> {
    return (await this.of(projectRef, actor)).create(input);
  }

  async update(projectRef: string, actor: UserRecord, key: string, filter: VariableFilter, changes: VariableChanges): Promise<CiVariableRecord> {
    return (await this.of(projectRef, actor)).update(key, filter, changes);
  }

  async remove(projectRef: string, actor: UserRecord, key: string, filter: VariableFilter): Promise<void> {
    await (await this.of(projectRef, actor)).remove(key, filter);
  }

  private async of(projectRef: string, actor: UserRecord): Promise<OwnedVariables> {
    const project: ProjectRecord = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canManageProjectCiSettings(project, actor))) throw accessDenied();
    return new OwnedVariables(this.deps.variables, project.id, true, PROJECT_RULES);
  }
}

export interface GroupVariablesServiceDeps {
  variables: CiVariablesStore;
  lookup: Pick<Lookup, 'readableGroup'>;
  permissions: Pick<Permissions, 'canManageGroupCiVariables'>;
}

/** `/groups/:id/variables`: the group's Maintainers and Owners manage its CI variables (all environments). */
export class GroupVariablesService {
  constructor(private readonly deps: GroupVariablesServiceDeps) {}

  async list(groupRef: string, actor: UserRecord, page: Page): Promise<Paged<CiVariableRecord>> {
    return (await this.of(groupRef, actor)).page(page);
  }

  async get(groupRef: string, actor: UserRecord, key: string): Promise<CiVariableRecord> {
    return (await this.of(groupRef, actor)).find(key, {});
  }

  async create(groupRef: string, actor: UserRecord, input: Omit<NewVariable, 'environmentScope'>): Promise<CiVariableRecord> {
    return (await this.of(groupRef, actor)).create(input);
  }

  async update(groupRef: string, actor: UserRecord, key: string, changes: VariableChanges): Promise<CiVariableRecord> {
    return (await this.of(groupRef, actor)).update(key, {}, changes);
  }

  async remove(groupRef: string, actor: UserRecord, key: string): Promise<void> {
    await (await this.of(groupRef, actor)).remove(key, {});
  }

  private async of(groupRef: string, actor: UserRecord): Promise<OwnedVariables> {
    const group: NamespaceRecord = await this.deps.lookup.readableGroup(groupRef, actor);
    if (!(await this.deps.permissions.canManageGroupCiVariables(group, actor))) throw accessDenied();
    return new OwnedVariables(this.deps.variables, group.id, false, GROUP_RULES);
  }
}

export interface InstanceVariablesServiceDeps {
  variables: CiVariablesStore;
  permissions: Pick<Permissions, 'isAdministrator'>;
}

/** `/admin/ci/variables`: administrators manage the instance's CI variables (unique by key, no environment scope). */
export class InstanceVariablesService {
  constructor(private readonly deps: InstanceVariablesServiceDeps) {}

  async list(actor: UserRecord, page: Page): Promise<Paged<CiVariableRecord>> {
    return this.of(actor).page(page);
  }

  async get(actor: UserRecord, key: string): Promise<CiVariableRecord> {
    return this.of(actor).find(key, {});
  }

  async create(actor: UserRecord, input: Omit<NewVariable, 'environmentScope' | 'maskedAndHidden'>): Promise<CiVariableRecord> {
    return this.of(actor).create(input);
  }

  async update(actor: UserRecord, key: string, changes: VariableChanges): Promise<CiVariableRecord> {
    return this.of(actor).update(key, {}, changes);
  }

  async remove(actor: UserRecord, key: string): Promise<void> {
    await this.of(actor).remove(key, {});
  }

  private of(actor: UserRecord): OwnedVariables {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
    return new OwnedVariables(this.deps.variables, INSTANCE_VARIABLES_OWNER, false, INSTANCE_RULES);
  }
}
