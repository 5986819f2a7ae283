import { accessDenied, GantryError, invalidParams } from '../../../shared/errors.ts';
import { INTEGRATION_EVENT_FLAGS, type IntegrationEvents, type IntegrationPropertyValue, type IntegrationRecord, type IntegrationsStore } from '../../../storage/types-integrations.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';
import { DEFAULT_EVENTS, integrationBySlug, integrationNamed, type IntegrationDefinition } from './catalogue.ts';

/** PUT's parameters as the route read them (strings, parsed booleans and integers). */
export type IntegrationParams = Readonly<Record<string, string | boolean | number | undefined>>;

/** One integration of one project as the API shows it. */
export interface IntegrationView {
  definition: IntegrationDefinition;
  /** Asked for under GitLab's slug: answer with GitLab's slug and field names. */
  alias: boolean;
  /** Undefined for an integration never configured (GitLab answers its blank settings, inactive). */
  record: IntegrationRecord | undefined;
}

export interface IntegrationsServiceDeps {
  integrations: IntegrationsStore;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'canManageProjectCiSettings'>;
  clock?: () => number;
}

/** The deprecated integration whose every call is refused while it is inactive (and nothing activates it). */
const DEPRECATED_SLUG = 'cluster-deploy';

/** `/projects/:id/services/<slug>` (and GitLab's alias paths): Maintainers and Owners read, set and remove a project's integrations. */
export class IntegrationsService {
  constructor(private readonly deps: IntegrationsServiceDeps) {}

  async list(projectRef: string, actor: UserRecord): Promise<IntegrationView[]> {
    const project = await this.project(projectRef, actor);
    const records = await this.deps.integrations.listActive(project.id);
    return records.flatMap((record) => {
      const definition = integrationBySlug(record.slug);
      return definition && definition.slug !== DEPRECATED_SLUG ? [{ definition, alias: false, record }] : [];
    });
  }

  async get(projectRef: string, actor: UserRecord, segment: string): Promise<IntegrationView> {
    const { definition, alias } = named(segment);
    const project = await this.project(projectRef, actor);
    const record = await this.deps.integrations.find(project.id, definition.slug);
    refuseInactiveDeprecated(definition, record);
    return { definition, alias, record };
  }

  /** Creates or edits the integration and activates it; required parameters must all be given. */
  async update(projectRef: string, actor: UserRecord, segment: string, params: IntegrationParams): Promise<IntegrationView> {
    const { definition, alias } = named(segment);
    const project = await this.project(projectRef, actor);
    const existing = await this.deps.integrations.find(project.id, definition.slug);
    refuseInactiveDeprecated(definition, existing);
    const given = neutralParams(definition, params);
    const missing = definition.fields.filter((field) => field.required && isBlank(given[field.name]));
    if (missing.length > 0) throw invalidParams(missing.map((field) => ({ name: gitlabName(definition, field.name, alias), problem: 'is missing' })));
    const properties: Record<string, IntegrationPropertyValue> = { ...existing?.properties };
    for (const field of definition.fields) {
      const value = given[field.name];
      if (value !== undefined) properties[field.name] = value;
      else if (properties[field.name] === undefined && field.default !== undefined) properties[field.name] = field.default;
    }
    const events = { ...(existing?.events ?? DEFAULT_EVENTS) } as IntegrationEvents;
    for (const flag of INTEGRATION_EVENT_FLAGS) {
      const value = params[flag];
      if (typeof value === 'boolean') events[flag] = value;
    }
    const now = new Date((this.deps.clock ?? Date.now)()).toISOString();
    const record = await this.deps.integrations.save(project.id, definition.slug, { active: true, events, properties }, now);
    return { definition, alias, record };
  }

  /** Removes the integration's settings; it reads as never configured (inactive) afterwards. */
  async remove(projectRef: string, actor: UserRecord, segment: string): Promise<void> {
    const { definition } = named(segment);
    const project = await this.project(projectRef, actor);
    refuseInactiveDeprecated(definition, await this.deps.integrations.find(project.id, definition.slug));
    await this.deps.integrations.remove(project.id, definition.slug);
  }

  private async project(projectRef: string, actor: UserRecord): Promise<ProjectRecord> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (!(await this.deps.permissions.canManageProjectCiSettings(project, actor))) throw accessDenied();
    return project;
  }
}

function named(segment: string): { definition: IntegrationDefinition; alias: boolean } {
  const found = integrationNamed(segment);
  // An unknown slug is a path GitLab routes nowhere.
  if (!found) throw new GantryError('GANTRY_E_ROUTE_NOT_FOUND');
  return found;
}

function refuseInactiveDeprecated(definition: IntegrationDefinition, record: IntegrationRecord | undefined): void {
  if (definition.slug === DEPRECATED_SLUG && !record?.active) {
    throw new GantryError('GANTRY_E_INTEGRATION_INACTIVE', `${definition.slug} is deprecated and inactive; it cannot be read, set or removed`);
  }
}

/** The integration's own fields from `params`, by neutral name; GitLab's name of a renamed field counts too. */
function neutralParams(definition: IntegrationDefinition, params: IntegrationParams): Record<string, IntegrationPropertyValue | undefined> {
  const given: Record<string, IntegrationPropertyValue | undefined> = {};
  for (const field of definition.fields) {
    const gitlabField = definition.gitlabFieldNames?.[field.name];
    const value = params[field.name] ?? (gitlabField === undefined ? undefined : params[gitlabField]);
    if (value === undefined) continue;
    if (field.kind === 'boolean' && typeof value !== 'boolean') continue;
    if (field.kind === 'integer' && typeof value !== 'number') continue;
    given[field.name] = field.kind === 'string' ? String(value) : value;
  }
  return given;
}

function isBlank(value: IntegrationPropertyValue | undefined): boolean {
  return value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** A field's name as the caller knows it: GitLab's under an alias path. */
export function gitlabName(definition: IntegrationDefinition, field: string, alias: boolean): string {
  return alias ? (definition.gitlabFieldNames?.[field] ?? field) : field;
}
