import { accessDenied, atLeastOneOf, GantryError, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { DeployKeyRecord, DeployKeysStore, ProjectDeployKeyRecord, ReleasesStore } from '../../../storage/types-repository.ts';
import type { SshKeysStore } from '../../../storage/types-users.ts';
import type { ProjectRecord, ProjectsStore, UserRecord } from '../../../storage/types.ts';
import type { CoordinatorEvents } from '../events.ts';
import { checkLengths } from '../field-limits.ts';
import { parseSshPublicKey, sha256Digest, SSH_KEY_LIMITS, sshKeyRestrictionError } from './keys/ssh-key.ts';
import type { Permissions } from '../access/permissions.ts';
import type { ProtectedBranchesService } from '../repository/protected-branches.ts';
import type { RepositoryAccess } from '../repository/access.ts';
import type { Page, Paged } from '../repository/pages.ts';
import type { SettingsService } from '../instance/settings.ts';

export interface NewDeployKey {
  title: string;
  key: string;
  canPush: boolean;
}

export interface DeployKeyChanges {
  title?: string;
  canPush?: boolean;
}

export interface DeployKeysServiceDeps {
  access: Pick<RepositoryAccess, 'forSettings'>;
  permissions: Pick<Permissions, 'canListAllDeployKeys' | 'canReuseDeployKey'>;
  deployKeys: Omit<DeployKeysStore, 'unlinkProject' | 'deleteUnused'>;
  sshKeys: Pick<SshKeysStore, 'findByFingerprint'>;
  projects: Pick<ProjectsStore, 'findById'>;
  settings: Pick<SettingsService, 'values'>;
}

/** Deploy keys: SSH keys granting one or more projects' repositories read (or push) access. */
export class DeployKeysService {
  constructor(private readonly deps: DeployKeysServiceDeps) {}

  /** Every deploy key of the instance: administrators only. */
  async listAll(actor: UserRecord, page: Page): Promise<Paged<DeployKeyRecord>> {
    if (!this.deps.permissions.canListAllDeployKeys(actor)) throw accessDenied();
    const { deployKeys } = this.deps;
    return { items: await deployKeys.listAll(page), total: await deployKeys.countAll() };
  }

  async list(projectRef: string, actor: UserRecord, page: Page): Promise<Paged<ProjectDeployKeyRecord>> {
    const project = await this.project(projectRef, actor);
    const { deployKeys } = this.deps;
    return { items: await deployKeys.listForProject(project.id, page), total: await deployKeys.countForProject(project.id) };
  }

  async get(projectRef: string, actor: UserRecord, keyId: number): Promise<ProjectDeployKeyRecord> {
    return this.find(await this.project(projectRef, actor), keyId);
  }

  /**
   * GitLab's rules: a key already on this project is returned as it is; a key another project
   * uses joins this one only when the caller can access such a project; else the fingerprint
   * is taken.
   */
  async add(projectRef: string, actor: UserRecord, input: NewDeployKey): Promise<ProjectDeployKeyRecord> {
    const project = await this.project(projectRef, actor);
    try {
      return await this.addOnce(project, actor, input);
    } catch (error) {
      // Another request stored the same key meanwhile: decide again, now that it exists.
      if (!isUniqueViolation(error)) throw error;
      return this.addOnce(project, actor, input);
    }
  }

  private async addOnce(project: ProjectRecord, actor: UserRecord, input: NewDeployKey): Promise<ProjectDeployKeyRecord> {
    const { deployKeys } = this.deps;
    checkLengths(SSH_KEY_LIMITS, { title: input.title, key: input.key });
    const parsed = parseSshPublicKey(input.key);
    if (!parsed) throw validationFailed({ key: ['is invalid'], fingerprint: ['cannot be generated'] });
    const existing = await deployKeys.findByFingerprint(parsed.fingerprint);
    if (existing) {
      const linked = await deployKeys.findForProject(project.id, existing.id);
      if (linked) return linked;
      if (await this.canUse(existing.id, actor)) {
        await deployKeys.link(existing.id, project.id, input.canPush, new Date().toISOString());
        return this.find(project, existing.id);
      }
    }
    const errors: Record<string, string[]> = {};
    const restriction = sshKeyRestrictionError(parsed, await this.deps.settings.values());
    if (restriction) errors.key = [restriction];
    if (existing || (await this.deps.sshKeys.findByFingerprint(parsed.fingerprint))) errors.fingerprint = ['has already been taken'];
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const now = new Date().toISOString();
    const created = await deployKeys.create({ title: input.title, key: parsed.normalized, fingerprint: parsed.fingerprint, fingerprint_sha256: sha256Digest(parsed), created_at: now });
    await deployKeys.link(created.id, project.id, input.canPush, now);
    return this.find(project, created.id);
  }

  async update(projectRef: string, actor: UserRecord, keyId: number, changes: DeployKeyChanges): Promise<ProjectDeployKeyRecord> {
    const project = await this.project(projectRef, actor);
    if (changes.title === undefined && changes.canPush === undefined) {
      throw atLeastOneOf(['title', 'can_push']);
    }
    await this.find(project, keyId);
    if (changes.title !== undefined) {
      if (changes.title.trim() === '') throw validationFailed({ title: ["can't be blank"] });
      checkLengths(SSH_KEY_LIMITS, { title: changes.title });
      await this.deps.deployKeys.updateTitle(keyId, changes.title);
    }
    if (changes.canPush !== undefined) await this.deps.deployKeys.setCanPush(keyId, project.id, changes.canPush);
    return this.find(project, keyId);
  }

  /** Unlinks the key; the key itself goes when no other project uses it. */
  async remove(projectRef: string, actor: UserRecord, keyId: number): Promise<void> {
    const project = await this.project(projectRef, actor);
    await this.find(project, keyId);
    await this.unlink(project.id, keyId);
  }

  /** 404 unless the key exists and the caller can access a project using it (admins: any key). */
  async enable(projectRef: string, actor: UserRecord, keyId: number): Promise<ProjectDeployKeyRecord> {
    const project = await this.project(projectRef, actor);
    const { deployKeys } = this.deps;
    const linked = await deployKeys.findForProject(project.id, keyId);
    if (linked) return linked;
    if (!(await deployKeys.findById(keyId)) || !(await this.canUse(keyId, actor))) throw new GantryError('GANTRY_E_DEPLOY_KEY_NOT_FOUND');
    await deployKeys.link(keyId, project.id, false, new Date().toISOString());
    return this.find(project, keyId);
  }

  private async unlink(projectId: number, keyId: number): Promise<void> {
    const { deployKeys } = this.deps;
    await deployKeys.unlink(keyId, projectId);
    if ((await deployKeys.projectIds(keyId)).length === 0) await deployKeys.delete(keyId);
  }

  private async canUse(keyId: number, actor: UserRecord): Promise<boolean> {
    const projects: ProjectRecord[] = [];
    for (const projectId of await this.deps.deployKeys.projectIds(keyId)) {
      const project = await this.deps.projects.findById(projectId);
      if (project) projects.push(project);
    }
    return this.deps.permissions.canReuseDeployKey(projects, actor);
  }

  /** `:id` for deploy-key routes: 404 when invisible, 403 below Maintainer. */
  private async project(projectRef: string, actor: UserRecord): Promise<ProjectRecord> {
    return (await this.deps.access.forSettings(projectRef, actor)).project;
  }

  private async find(project: ProjectRecord, keyId: number): Promise<ProjectDeployKeyRecord> {
    const key = await this.deps.deployKeys.findForProject(project.id, keyId);
    if (!key) throw new GantryError('GANTRY_E_DEPLOY_KEY_NOT_FOUND');
    return key;
  }
}

export interface RepositoryCleanUpDeps {
  events: Pick<CoordinatorEvents, 'onProjectDeleted'>;
  branchRules: Pick<ProtectedBranchesService, 'removeAll'>;
  releases: Pick<ReleasesStore, 'deleteForProject'>;
  deployKeys: Pick<DeployKeysStore, 'unlinkProject' | 'deleteUnused'>;
}

/**
 * Drops what hangs off a deleted project: protected branches, releases, deploy key links and
 * keys no other project uses. The links may already be gone (foreign-key cascade when the
 * project row was deleted), so unused keys are swept.
 */
export function cleanUpRepositoryProtection(deps: RepositoryCleanUpDeps): void {
  deps.events.onProjectDeleted(async ({ project_id: projectId }) => {
    await deps.branchRules.removeAll(projectId);
    await deps.releases.deleteForProject(projectId);
    await deps.deployKeys.unlinkProject(projectId);
    await deps.deployKeys.deleteUnused();
  });
}
