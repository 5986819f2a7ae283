import { GantryError } from '../../../shared/errors.ts';
import { wildcardMatches } from '../../../shared/glob.ts';
import type { ProtectedBranchRecord, ProtectedBranchesStore, ProtectionLevel } from '../../../storage/types-repository.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import { checkLengths, type FieldLimits } from '../field-limits.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';

export interface ProtectedBranchesServiceDeps {
  store: ProtectedBranchesStore;
  settings: Pick<SettingsService, 'values'>;
  permissions: Pick<Permissions, 'canWriteAtProtectionLevel'>;
}

export interface BranchProtection {
  /** The rule that matched: a branch name or a wildcard. */
  pattern: string;
  push_access_level: ProtectionLevel;
  merge_access_level: ProtectionLevel;
  /** Whether any matching rule allows force pushes. */
  allow_force_push: boolean;
}

/** A rule's name (a branch name or wildcard) fills a 255-character column, as in GitLab. */
export const PROTECTED_BRANCH_LIMITS = { name: 255 } as const satisfies FieldLimits;

/** default_branch_protection → levels (0 none; 1 developers push and merge; 2 maintainers; 3 developers merge only). */
const DEFAULT_BRANCH_LEVELS: Record<number, [ProtectionLevel, ProtectionLevel] | null> = {
  0: null,
  1: [30, 30],
  2: [40, 40],
  3: [40, 30],
};

/** A rule's name matches with `*` as any run of characters, '/' included (protected tags too). */
export { wildcardMatches };

/** Lower is more permissive, except 0 (no one) which is the least. */
export function morePermissive(a: ProtectionLevel, b: ProtectionLevel): ProtectionLevel {
  if (a === 0) return b;
  if (b === 0) return a;
  return a < b ? a : b;
}

export function isProtectionLevel(value: number): value is ProtectionLevel {
  return value === 0 || value === 30 || value === 40;
}

/**
 * Which branches are protected and who may push to or merge into them. An exact rule wins; when
 * several wildcards match, the most permissive level per action applies (GitLab grants access
 * if any matching rule does). The default branch is protected by a rule of its own, made when
 * it is created (`protectDefaultBranch`), which can be changed or removed like any other.
 */
export class ProtectedBranchesService {
  private readonly store: ProtectedBranchesStore;

  constructor(private readonly deps: ProtectedBranchesServiceDeps) {
    this.store = deps.store;
  }

  async protectionFor(project: ProjectRecord, branch: string): Promise<BranchProtection | null> {
    const rules = await this.store.listForProject(project.id);
    const exact = rules.find((rule) => rule.name === branch);
    if (exact) return { pattern: exact.name, push_access_level: exact.push_access_level, merge_access_level: exact.merge_access_level, allow_force_push: exact.allow_force_push };
    const matching = rules.filter((rule) => wildcardMatches(rule.name, branch));
    if (matching.length > 0) {
      const [first, ...others] = matching;
      return others.reduce<BranchProtection>(
        (merged, rule) => ({
          ...merged,
          push_access_level: morePermissive(merged.push_access_level, rule.push_access_level),
          merge_access_level: morePermissive(merged.merge_access_level, rule.merge_access_level),
          allow_force_push: merged.allow_force_push || rule.allow_force_push,
        }),
        { pattern: first.name, push_access_level: first.push_access_level, merge_access_level: first.merge_access_level, allow_force_push: first.allow_force_push },
      );
    }
    return null;
  }

  /**
   * GitLab's ProtectDefaultBranchService, for a default branch just created: a rule with the
   * levels of `default_branch_protection` (none for 0), unless a rule already covers the branch.
   */
  async protectDefaultBranch(project: ProjectRecord, branch: string): Promise<void> {
    const levels = DEFAULT_BRANCH_LEVELS[(await this.deps.settings.values()).default_branch_protection] ?? null;
    if (!levels || (await this.protectionFor(project, branch))) return;
    const now = new Date().toISOString();
    // null when a concurrent push made it a moment ago: the rule is there either way.
    await this.store.create({ project_id: project.id, name: branch, push_access_level: levels[0], merge_access_level: levels[1], allow_force_push: false, created_at: now, updated_at: now });
  }

  async isProtected(project: ProjectRecord, branch: string): Promise<boolean> {
    return (await this.protectionFor(project, branch)) !== null;
  }

  async canPush(project: ProjectRecord, actor: UserRecord | null, branch: string): Promise<boolean> {
    return this.allowed(project, actor, (await this.protectionFor(project, branch))?.push_access_level);
  }

  /** Whether a rule for the branch allows force pushes (to those who may push at all). */
  async allowsForcePush(project: ProjectRecord, branch: string): Promise<boolean> {
    return (await this.protectionFor(project, branch))?.allow_force_push ?? false;
  }

  async canMerge(project: ProjectRecord, actor: UserRecord | null, branch: string): Promise<boolean> {
    return this.allowed(project, actor, (await this.protectionFor(project, branch))?.merge_access_level);
  }

  list(project: ProjectRecord): Promise<ProtectedBranchRecord[]> {
    return this.store.listForProject(project.id);
  }

  async find(project: ProjectRecord, name: string): Promise<ProtectedBranchRecord> {
    const rule = await this.store.find(project.id, name);
    if (!rule) throw new GantryError('GANTRY_E_PROTECTED_BRANCH_NOT_FOUND');
    return rule;
  }

  async create(project: ProjectRecord, name: string, push: ProtectionLevel, merge: ProtectionLevel, allowForcePush = false): Promise<ProtectedBranchRecord> {
    checkLengths(PROTECTED_BRANCH_LIMITS, { name });
    const now = new Date().toISOString();
    const rule = await this.store.create({ project_id: project.id, name, push_access_level: push, merge_access_level: merge, allow_force_push: allowForcePush, created_at: now, updated_at: now });
    if (!rule) throw new GantryError('GANTRY_E_ALREADY_EXISTS', `Protected branch '${name}' already exists`, { resource: 'Protected branch' });
    return rule;
  }

  /** Creates or updates the exact-name rule (the deprecated branches/:branch/protect). */
  async protect(project: ProjectRecord, name: string, push: ProtectionLevel, merge: ProtectionLevel): Promise<ProtectedBranchRecord> {
    const now = new Date().toISOString();
    const existing = await this.store.find(project.id, name);
    if (!existing) {
      const created = await this.store.create({ project_id: project.id, name, push_access_level: push, merge_access_level: merge, allow_force_push: false, created_at: now, updated_at: now });
      if (created) return created;
    }
    // Either it existed, or a concurrent request created it a moment ago: update it.
    const rule = existing ?? (await this.store.find(project.id, name));
    if (!rule) throw new GantryError('GANTRY_E_PROTECTED_BRANCH_NOT_FOUND');
    return this.store.update(rule.id, { push_access_level: push, merge_access_level: merge, updated_at: now });
  }

  async remove(project: ProjectRecord, name: string): Promise<boolean> {
    return this.store.delete(project.id, name);
  }

  async removeAll(projectId: number): Promise<void> {
    await this.store.deleteForProject(projectId);
  }

  private allowed(project: ProjectRecord, actor: Actor, level: ProtectionLevel | undefined): Promise<boolean> {
    return this.deps.permissions.canWriteAtProtectionLevel(project, actor, level);
  }
}
