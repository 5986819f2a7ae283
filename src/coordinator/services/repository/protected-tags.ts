import { GantryError } from '../../../shared/errors.ts';
import { PUSH_MESSAGES } from '../../../storage/git/hooks.ts';
import type { ProtectedTagRecord, ProtectedTagsStore, ProtectionLevel } from '../../../storage/types-repository.ts';
import type { ProjectRecord } from '../../../storage/types.ts';
import { checkLengths, type FieldLimits } from '../field-limits.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import { morePermissive, wildcardMatches } from './protected-branches.ts';

export interface ProtectedTagsServiceDeps {
  store: ProtectedTagsStore;
  permissions: Pick<Permissions, 'canWriteAtProtectionLevel' | 'protectedTagDeletionLevel'>;
}

/** The same words for the API and for git pushes (the pre-receive hook prints them). */
export const PROTECTED_TAG_MESSAGES = {
  create: PUSH_MESSAGES.protectedTagCreate,
  update: PUSH_MESSAGES.protectedTagUpdate,
  delete: PUSH_MESSAGES.protectedTagDelete,
} as const;

/** A rule's name (a tag name or wildcard) fills a 255-character column, as in GitLab. */
export const PROTECTED_TAG_LIMITS = { name: 255 } as const satisfies FieldLimits;

/**
 * Protected tags (names or `*` wildcards): creating a matching tag needs the rule's
 * create_access_level (the most permissive of matching rules), a protected tag never moves,
 * and only maintainers delete one.
 */
export class ProtectedTagsService {
  private readonly store: ProtectedTagsStore;

  constructor(private readonly deps: ProtectedTagsServiceDeps) {
    this.store = deps.store;
  }

  /** The create level of the rules matching `tag`, or null when it is not protected. */
  async protectionFor(project: ProjectRecord, tag: string): Promise<ProtectionLevel | null> {
    const matching = (await this.store.listForProject(project.id)).filter((rule) => wildcardMatches(rule.name, tag));
    if (matching.length === 0) return null;
    return matching.map((rule) => rule.create_access_level).reduce(morePermissive);
  }

  /** Whether a tag name is protected, for many names: the project's rules are read once. */
  async protectedTest(project: ProjectRecord): Promise<(tag: string) => boolean> {
    const rules = await this.store.listForProject(project.id);
    return (tag) => rules.some((rule) => wildcardMatches(rule.name, tag));
  }

  async canCreate(project: ProjectRecord, actor: Actor, tag: string): Promise<boolean> {
    return this.deps.permissions.canWriteAtProtectionLevel(project, actor, (await this.protectionFor(project, tag)) ?? undefined);
  }

  /** Deleting a protected tag takes a maintainer; an unprotected one, write access. */
  async canDelete(project: ProjectRecord, actor: Actor, tag: string): Promise<boolean> {
    const protectedTag = (await this.protectionFor(project, tag)) !== null;
    const { permissions } = this.deps;
    return permissions.canWriteAtProtectionLevel(project, actor, protectedTag ? permissions.protectedTagDeletionLevel() : undefined);
  }

  list(project: ProjectRecord): Promise<ProtectedTagRecord[]> {
    return this.store.listForProject(project.id);
  }

  async find(project: ProjectRecord, name: string): Promise<ProtectedTagRecord> {
    const rule = await this.store.find(project.id, name);
    if (!rule) throw new GantryError('GANTRY_E_PROTECTED_TAG_NOT_FOUND');
    return rule;
  }

  async create(project: ProjectRecord, name: string, createAccessLevel: ProtectionLevel): Promise<ProtectedTagRecord> {
    checkLengths(PROTECTED_TAG_LIMITS, { name });
    const rule = await this.store.create({ project_id: project.id, name, create_access_level: createAccessLevel, created_at: new Date().toISOString() });
    if (!rule) throw new GantryError('GANTRY_E_ALREADY_EXISTS', `Protected tag '${name}' already exists`, { resource: 'Protected tag' });
    return rule;
  }

  async remove(project: ProjectRecord, name: string): Promise<boolean> {
    return this.store.delete(project.id, name);
  }
}
