import { GantryError } from '../../../shared/errors.ts';
import { PUSH_MESSAGES } from '../../../storage/git/hooks.ts';
import { REF_MESSAGES } from '../../../storage/git/refs.ts';
import type { GitBranch } from '../../../storage/git/types.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { CoordinatorEvents } from '../events.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { BranchProtection, ProtectedBranchesService } from './protected-branches.ts';
import { branchNameProblem } from './ref-name-rules.ts';
import type { ReadableRepository, RepositoryAccess, WritableRepository } from './access.ts';
import type { RepositoryWriter } from './writes.ts';
import type { Page, Paged } from './pages.ts';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** A branch with everything its JSON needs. */
export interface BranchView {
  branch: GitBranch;
  merged: boolean;
  protection: BranchProtection | null;
  isDefault: boolean;
  canPush: boolean;
}

/** A branch as the routes answer it, with where its project lives (for URLs). */
export interface BranchResult {
  target: ReadableRepository;
  view: BranchView;
}

export interface BranchesServiceDeps {
  access: Pick<RepositoryAccess, 'forRead' | 'forWrite' | 'forSettings'>;
  permissions: Pick<Permissions, 'canWriteRepository' | 'protectionLevelAllowingDevelopers'>;
  branchRules: Pick<ProtectedBranchesService, 'protectionFor' | 'isProtected' | 'canPush' | 'protect' | 'remove'>;
  events: Pick<CoordinatorEvents, 'publishPush'>;
  /** Writes the README.md an empty repository gets before its first branch is created. */
  writer: Pick<RepositoryWriter, 'commit'>;
}

/** GitLab's refusal of a new branch's name (ref-name-rules.ts): `Branch name is invalid`, or a name that reads as a commit id. */
export function checkNewBranchName(name: string): void {
  const problem = branchNameProblem(name);
  if (problem === 'sha-like') throw new GantryError('GANTRY_E_REF_NAME_INVALID', PUSH_MESSAGES.shaBranchName);
  if (problem) throw new GantryError('GANTRY_E_REF_NAME_INVALID', REF_MESSAGES.invalidBranchName);
}

/** `/projects/:id/repository/branches` and merged_branches. */
export class BranchesService {
  constructor(private readonly deps: BranchesServiceDeps) {}

  /**
   * One page of the branches matching `search` (case-insensitive; `^x` prefix, `x$` suffix,
   * else substring), sorted by name; only the page's branches are looked at closely.
   */
  async list(projectRef: string, actor: Actor, search: string | undefined, page: Page): Promise<{ target: ReadableRepository } & Paged<BranchView>> {
    const target = await this.deps.access.forRead(projectRef, actor);
    if (!target.repository) return { target, items: [], total: 0 };
    const branches = (await target.repository.branches()).filter((branch) => matchesSearch(branch.name, search));
    branches.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const pageBranches = branches.slice(page.offset, page.offset + page.limit);
    const merged = pageBranches.length === 0 ? new Set<string>() : await this.mergedSet(target);
    const items = await Promise.all(pageBranches.map((branch) => this.view(target, actor, branch, merged)));
    return { target, items, total: branches.length };
  }

  async get(projectRef: string, actor: Actor, name: string): Promise<BranchResult> {
    const target = await this.deps.access.forRead(projectRef, actor);
    return { target, view: await this.find(target, actor, name) };
  }

  private async find(target: ReadableRepository, actor: Actor, name: string): Promise<BranchView> {
    return this.view(target, actor, await this.existing(target, name), await this.mergedSet(target));
  }

  private async existing(target: ReadableRepository, name: string): Promise<GitBranch> {
    const branch = target.repository ? await target.repository.branch(name) : null;
    if (!branch) throw new GantryError('GANTRY_E_BRANCH_NOT_FOUND');
    return branch;
  }

  async create(projectRef: string, actor: UserRecord, name: string, ref: string): Promise<BranchResult> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    checkNewBranchName(name);
    const repository = await this.withFirstCommit(target);
    // GitLab's order: the name, then a branch already there, then the ref.
    if (repository && (await repository.branch(name))) throw new GantryError('GANTRY_E_BRANCH_EXISTS', 'Branch already exists');
    const sha = repository ? await repository.resolveCommit(ref) : null;
    if (!repository || !sha) throw new GantryError('GANTRY_E_REF_NOT_FOUND', 'Invalid reference name');
    if (!(await this.deps.branchRules.canPush(target.project, actor, name))) throw new GantryError('GANTRY_E_BRANCH_PROTECTED');
    if (!(await repository.createBranch(name, sha))) throw new GantryError('GANTRY_E_BRANCH_EXISTS', 'Branch already exists');
    await this.deps.events.publishPush({ project_id: target.project.id, ref: `refs/heads/${name}`, before: ZERO_SHA, after: sha, user_id: actor.id });
    return { target, view: await this.find(target, actor, name) };
  }

  /**
   * GitLab's Branches::CreateService on an empty repository: an empty README.md is committed to
   * the default branch first (by the caller, who may then branch from it).
   */
  private async withFirstCommit(target: WritableRepository) {
    if (target.repository && !(await target.repository.isEmpty())) return target.repository;
    const branch = target.project.default_branch ?? 'main';
    const { repository } = await this.deps.writer.commit(target, { branch, message: 'Add README.md', actions: [{ action: 'create', file_path: 'README.md', content: Buffer.alloc(0) }] });
    return repository;
  }

  async delete(projectRef: string, actor: UserRecord, name: string): Promise<void> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    const branch = target.repository ? await target.repository.branch(name) : null;
    if (!target.repository || !branch) throw new GantryError('GANTRY_E_BRANCH_NOT_FOUND');
    if (name === (await this.defaultBranch(target))) throw new GantryError('GANTRY_E_DEFAULT_BRANCH_UNDELETABLE', 'The default branch of a project cannot be deleted.');
    if (await this.deps.branchRules.isProtected(target.project, name)) throw new GantryError('GANTRY_E_BRANCH_PROTECTED', 'Protected branch cant be removed', { reason: 'Protected branch cant be removed' });
    await this.removeBranch(target, actor, branch);
  }

  /** Deletes every branch merged into the default one except the default and protected branches. */
  async deleteMerged(projectRef: string, actor: UserRecord): Promise<void> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    if (!target.repository) return;
    const defaultBranch = await this.defaultBranch(target);
    if (!defaultBranch) return;
    for (const name of await target.repository.mergedBranches(defaultBranch)) {
      if (name === defaultBranch || (await this.deps.branchRules.isProtected(target.project, name))) continue;
      const branch = await target.repository.branch(name);
      if (branch) await this.removeBranch(target, actor, branch);
    }
  }

  /** The deprecated branches/:branch/protect: the exact-name rule, Developers or Maintainers per flag. */
  async protect(projectRef: string, actor: UserRecord, name: string, flags: { developersCanPush: boolean; developersCanMerge: boolean }): Promise<BranchResult> {
    const { permissions, branchRules } = this.deps;
    const target = await this.deps.access.forSettings(projectRef, actor);
    // One lookup: protecting a branch does not move it, so the view is built from it afterwards.
    const branch = await this.existing(target, name);
    const push = permissions.protectionLevelAllowingDevelopers(flags.developersCanPush);
    await branchRules.protect(target.project, name, push, permissions.protectionLevelAllowingDevelopers(flags.developersCanMerge));
    return { target, view: await this.view(target, actor, branch, await this.mergedSet(target)) };
  }

  async unprotect(projectRef: string, actor: UserRecord, name: string): Promise<BranchResult> {
    const target = await this.deps.access.forSettings(projectRef, actor);
    const branch = await this.existing(target, name);
    await this.deps.branchRules.remove(target.project, name);
    return { target, view: await this.view(target, actor, branch, await this.mergedSet(target)) };
  }

  private async defaultBranch(target: ReadableRepository): Promise<string | null> {
    return target.repository ? ((await target.repository.defaultBranch()) ?? target.project.default_branch) : null;
  }

  private async removeBranch(target: ReadableRepository, actor: UserRecord, branch: GitBranch): Promise<void> {
    if (!target.repository || !(await target.repository.deleteBranch(branch.name))) return;
    await this.deps.events.publishPush({ project_id: target.project.id, ref: `refs/heads/${branch.name}`, before: branch.commit.id, after: ZERO_SHA, user_id: actor.id });
  }

  private async mergedSet(target: ReadableRepository): Promise<Set<string>> {
    const defaultBranch = await this.defaultBranch(target);
    if (!target.repository || !defaultBranch) return new Set();
    const merged = new Set(await target.repository.mergedBranches(defaultBranch));
    merged.delete(defaultBranch);
    return merged;
  }

  private async view(target: ReadableRepository, actor: Actor, branch: GitBranch, merged: Set<string>): Promise<BranchView> {
    const protection = await this.deps.branchRules.protectionFor(target.project, branch.name);
    const writable = actor !== null && (await this.deps.permissions.canWriteRepository(target.project, actor));
    const canPush = writable && (await this.deps.branchRules.canPush(target.project, actor, branch.name));
    return { branch, merged: merged.has(branch.name), protection, isDefault: branch.name === (await this.defaultBranch(target)), canPush };
  }
}

export function matchesSearch(name: string, search: string | undefined): boolean {
  if (!search) return true;
  const lower = name.toLowerCase();
  let term = search.toLowerCase();
  const anchoredStart = term.startsWith('^');
  const anchoredEnd = term.endsWith('$');
  if (anchoredStart) term = term.slice(1);
  if (anchoredEnd) term = term.slice(0, -1);
  if (anchoredStart && anchoredEnd) return lower === term;
  if (anchoredStart) return lower.startsWith(term);
  if (anchoredEnd) return lower.endsWith(term);
  return lower.includes(term);
}
