import { accessDenied, GantryError, invalidParam, validationFailed } from '../../../shared/errors.ts';
import type { CustomAttributeRecord, CustomAttributesStore, CustomAttributeSubject, UserRecord } from '../../../storage/types.ts';
import { checkLengths, type FieldLimits } from '../field-limits.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Permissions } from '../access/permissions.ts';

/** GitLab keeps keys and values in 255-character columns. */
export const CUSTOM_ATTRIBUTE_LIMITS = { key: 255, value: 255 } as const satisfies FieldLimits;

export interface CustomAttributesDeps {
  store: CustomAttributesStore;
  lookup: Pick<Lookup, 'user' | 'findGroup' | 'findProject'>;
  permissions: Pick<Permissions, 'isAdministrator'>;
}

/** Key/value attributes an administrator attaches to users, groups and projects (administrators only). */
export class CustomAttributesService {
  constructor(private readonly deps: CustomAttributesDeps) {}

  /** The subject's id for `:id` (an id, a username for users, a full path for groups and projects), else 404. */
  async subjectId(subject: CustomAttributeSubject, ref: string): Promise<number> {
    switch (subject) {
      case 'user':
        return (await this.deps.lookup.user(ref)).id;
      case 'group': {
        const group = await this.deps.lookup.findGroup(ref);
        if (!group) throw new GantryError('GANTRY_E_GROUP_NOT_FOUND');
        return group.id;
      }
      case 'project': {
        const project = await this.deps.lookup.findProject(ref);
        if (!project || project.pending_delete) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
        return project.id;
      }
    }
  }

  async list(actor: UserRecord | null, subject: CustomAttributeSubject, ref: string): Promise<CustomAttributeRecord[]> {
    this.requireAdministrator(actor);
    return this.deps.store.list(subject, await this.subjectId(subject, ref));
  }

  async get(actor: UserRecord | null, subject: CustomAttributeSubject, ref: string, key: string): Promise<CustomAttributeRecord> {
    this.requireAdministrator(actor);
    const found = await this.deps.store.get(subject, await this.subjectId(subject, ref), key);
    if (!found) throw new GantryError('GANTRY_E_CUSTOM_ATTRIBUTE_NOT_FOUND');
    return found;
  }

  /** Creates or updates one attribute. */
  async set(actor: UserRecord | null, subject: CustomAttributeSubject, ref: string, key: string, value: string): Promise<CustomAttributeRecord> {
    this.requireAdministrator(actor);
    checkText('key', key);
    checkText('value', value);
    return this.deps.store.set(subject, await this.subjectId(subject, ref), key, value);
  }

  async delete(actor: UserRecord | null, subject: CustomAttributeSubject, ref: string, key: string): Promise<void> {
    this.requireAdministrator(actor);
    const deleted = await this.deps.store.delete(subject, await this.subjectId(subject, ref), key);
    if (!deleted) throw new GantryError('GANTRY_E_CUSTOM_ATTRIBUTE_NOT_FOUND');
  }

  private requireAdministrator(actor: UserRecord | null): void {
    if (!actor) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
  }
}

function checkText(field: 'key' | 'value', text: string): void {
  // PostgreSQL text cannot hold NUL; refuse it rather than fail in the database.
  if (text.includes('\u0000')) throw invalidParam(field, 'is invalid');
  if (text.trim() === '') throw validationFailed({ [field]: ["can't be blank"] });
  checkLengths(CUSTOM_ATTRIBUTE_LIMITS, { [field]: text });
}
