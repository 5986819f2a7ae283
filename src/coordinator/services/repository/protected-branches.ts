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
  /** The rule that matched: a branch name, a wildcard, or the default branch's name. */
  pattern: string;
  push_access_level: ProtectionLevel;
  merge_access_level: ProtectionLevel;
  /** Whether any matching rule allows force pushes (never for the default-branch setting). */
  allow_force_push: boolean;
  /** True when the protection comes from application setting default_branch_protection. */
  fromDefaultBranchSetting: boolean;
}

/** default_branch_protection → levels (0 none; 1 developers push and merge; 2 maintainers; 3 developers merge only). */
/** A rule's name (a branch name or wildcard) fills a 255-character column, as in GitLab. */
export const PROTECTED_BRANCH_LIMITS = { name: 255 } as const satisfies FieldLimits;

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
 * Which branches are protected and who may push to or merge into them. Explicit rules win
 * over the default-branch setting; when several wildcards match, the most permissive level
 * per action applies (GitLab grants access if any matching rule does).
 */
export class ProtectedBranchesService {
  private readonly store: ProtectedBranchesStore;

  constructor(private readonly deps: ProtectedBranchesServiceDeps) {
    this.store = deps.store;
  }

  async protectionFor(project: ProjectRecord, branch: string): Promise<BranchProtection | null> {
    const rules = await this.store.listForProject(project.id);
    const exact = rules.find((rule) => rule.name === branch);
    if (exact) return { pattern: exact.name, push_access_level: exact.push_access_level, merge_access_level: exact.merge_access_level, allow_force_push: exact.allow_force_push, fromDefaultBranchSetting: false };
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
        { pattern: first.name, push_access_level: first.push_access_level, merge_access_level: first.merge_access_level, allow_force_push: first.allow_force_push, fromDefaultBranchSetting: false },
      );
    }
    if (project.default_branch !== null && project.default_branch === branch) {
      const setting = (await this.deps.settings.values()).default_branch_protection;
      const levels = DEFAULT_BRANCH_LEVELS[setting] ?? null;
      if (levels) return { pattern: branch, push_access_level: levels[0], merge_access_level: levels[1], allow_force_push: false, fromDefaultBranchSetting: true };
    }
    return null;
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
