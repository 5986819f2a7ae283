import { GantryError } from '../../../shared/errors.ts';
import type { ProtectedBranchRecord, ProtectedTagRecord, ProtectionLevel } from '../../../storage/types-repository.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { ProtectedBranchesService } from './protected-branches.ts';
import type { ProtectedTagsService } from './protected-tags.ts';
import type { RepositoryAccess } from './access.ts';
import { pageOfList, type Page, type Paged } from './pages.ts';

export interface NewProtectedBranch {
  name: string;
  pushAccessLevel: ProtectionLevel;
  mergeAccessLevel: ProtectionLevel;
  allowForcePush: boolean;
}

export interface ProtectedRefsServiceDeps {
  access: Pick<RepositoryAccess, 'forSettings'>;
  branchRules: Pick<ProtectedBranchesService, 'list' | 'find' | 'create' | 'remove'>;
  tagRules: Pick<ProtectedTagsService, 'list' | 'find' | 'create' | 'remove'>;
}

/** `/projects/:id/protected_branches` and `/protected_tags`: the rules, for Maintainers and up. */
export class ProtectedRefsService {
  constructor(private readonly deps: ProtectedRefsServiceDeps) {}

  async listBranchRules(projectRef: string, actor: UserRecord, page: Page): Promise<Paged<ProtectedBranchRecord>> {
    return pageOfList(await this.deps.branchRules.list(await this.project(projectRef, actor)), page);
  }

  async branchRule(projectRef: string, actor: UserRecord, name: string): Promise<ProtectedBranchRecord> {
    return this.deps.branchRules.find(await this.project(projectRef, actor), name);
  }

  async protectBranch(projectRef: string, actor: UserRecord, rule: NewProtectedBranch): Promise<ProtectedBranchRecord> {
    const project = await this.project(projectRef, actor);
    return this.deps.branchRules.create(project, rule.name, rule.pushAccessLevel, rule.mergeAccessLevel, rule.allowForcePush);
  }

  async unprotectBranch(projectRef: string, actor: UserRecord, name: string): Promise<void> {
    const project = await this.project(projectRef, actor);
    if (!(await this.deps.branchRules.remove(project, name))) throw new GantryError('GANTRY_E_PROTECTED_BRANCH_NOT_FOUND');
  }

  async listTagRules(projectRef: string, actor: UserRecord, page: Page): Promise<Paged<ProtectedTagRecord>> {
    return pageOfList(await this.deps.tagRules.list(await this.project(projectRef, actor)), page);
  }

  async tagRule(projectRef: string, actor: UserRecord, name: string): Promise<ProtectedTagRecord> {
    return this.deps.tagRules.find(await this.project(projectRef, actor), name);
  }

  async protectTag(projectRef: string, actor: UserRecord, name: string, createAccessLevel: ProtectionLevel): Promise<ProtectedTagRecord> {
    const project = await this.project(projectRef, actor);
    return this.deps.tagRules.create(project, name, createAccessLevel);
  }

  async unprotectTag(projectRef: string, actor: UserRecord, name: string): Promise<void> {
    const project = await this.project(projectRef, actor);
    if (!(await this.deps.tagRules.remove(project, name))) throw new GantryError('GANTRY_E_PROTECTED_TAG_NOT_FOUND');
  }

  /** Rules are a Maintainer's business; 404 for projects the caller cannot see. */
  private async project(projectRef: string, actor: UserRecord): Promise<ProjectRecord> {
    return (await this.deps.access.forSettings(projectRef, actor)).project;
  }
}
