import { accessDenied, atLeastOneOf, GantryError, validationFailed } from '../../shared/errors.ts';
import { isUniqueViolation } from '../../storage/sql/database.ts';
import type { DeployKeyRecord, ProjectDeployKeyRecord } from '../../storage/types-repository.ts';
import type { ProjectRecord, UserRecord } from '../../storage/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { checkLengths } from './field-limits.ts';
import { parseSshPublicKey, SSH_KEY_LIMITS, sshKeyRestrictionError } from './keys/ssh-key.ts';
import { GUEST, MAINTAINER } from './permissions.ts';

export interface Page {
  offset: number;
  limit: number;
}

/** Deploy keys: SSH keys granting one or more projects' repositories read (or push) access. */
export class DeployKeysService {
  constructor(private readonly context: CoordinatorContext) {}

  /** `:id` for deploy-key routes: 404 when invisible, 403 below Maintainer. */
  async project(projectRef: string, actor: UserRecord): Promise<ProjectRecord> {
    const project = await this.context.lookup.readableProject(projectRef, actor);
    if (!(await this.context.permissions.projectLevelAtLeast(project, actor, MAINTAINER))) throw accessDenied();
    return project;
  }

  async listAll(page: Page): Promise<{ items: DeployKeyRecord[]; total: number }> {
    const { deployKeys } = this.context.stores;
    return { items: await deployKeys.listAll(page), total: await deployKeys.countAll() };
  }

  async list(project: ProjectRecord, page: Page): Promise<{ items: ProjectDeployKeyRecord[]; total: number }> {
    const { deployKeys } = this.context.stores;
    return { items: await deployKeys.listForProject(project.id, page), total: await deployKeys.countForProject(project.id) };
  }

  async find(project: ProjectRecord, keyId: number): Promise<ProjectDeployKeyRecord> {
    const key = await this.context.stores.deployKeys.findForProject(project.id, keyId);
    if (!key) throw new GantryError('GANTRY_E_DEPLOY_KEY_NOT_FOUND');
    return key;
  }

  /**
   * GitLab's rules: a key already on this project is returned as it is; a key another project
   * uses joins this one only when the caller can access such a project; else the fingerprint
   * is taken.
   */
  async add(project: ProjectRecord, actor: UserRecord, input: { title: string; key: string; canPush: boolean }): Promise<ProjectDeployKeyRecord> {
    try {
      return await this.addOnce(project, actor, input);
    } catch (error) {
      // Another request stored the same key meanwhile: decide again, now that it exists.
      if (!isUniqueViolation(error)) throw error;
      return this.addOnce(project, actor, input);
    }
  }

  private async addOnce(project: ProjectRecord, actor: UserRecord, input: { title: string; key: string; canPush: boolean }): Promise<ProjectDeployKeyRecord> {
    const { deployKeys } = this.context.stores;
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
    const restriction = sshKeyRestrictionError(parsed, await this.context.settings.values());
    if (restriction) errors.key = [restriction];
    if (existing || (await this.context.stores.sshKeys.findByFingerprint(parsed.fingerprint))) errors.fingerprint = ['has already been taken'];
    if (Object.keys(errors).length > 0) throw validationFailed(errors);
    const now = new Date().toISOString();
    const created = await deployKeys.create({ title: input.title, key: parsed.normalized, fingerprint: parsed.fingerprint, created_at: now });
    await deployKeys.link(created.id, project.id, input.canPush, now);
    return this.find(project, created.id);
  }

  async update(project: ProjectRecord, keyId: number, changes: { title?: string; canPush?: boolean }): Promise<ProjectDeployKeyRecord> {
    if (changes.title === undefined && changes.canPush === undefined) {
      throw atLeastOneOf(['title', 'can_push']);
    }
    await this.find(project, keyId);
    if (changes.title !== undefined) {
      if (changes.title.trim() === '') throw validationFailed({ title: ["can't be blank"] });
      checkLengths(SSH_KEY_LIMITS, { title: changes.title });
      await this.context.stores.deployKeys.updateTitle(keyId, changes.title);
    }
    if (changes.canPush !== undefined) await this.context.stores.deployKeys.setCanPush(keyId, project.id, changes.canPush);
    return this.find(project, keyId);
  }

  /** Unlinks the key; the key itself goes when no other project uses it. */
  async remove(project: ProjectRecord, keyId: number): Promise<void> {
    await this.find(project, keyId);
    await this.unlink(project.id, keyId);
  }

  /** 404 unless the key exists and the caller can access a project using it (admins: any key). */
  async enable(project: ProjectRecord, actor: UserRecord, keyId: number): Promise<ProjectDeployKeyRecord> {
    const { deployKeys } = this.context.stores;
    const linked = await deployKeys.findForProject(project.id, keyId);
    if (linked) return linked;
    if (!(await deployKeys.findById(keyId)) || !(await this.canUse(keyId, actor))) throw new GantryError('GANTRY_E_DEPLOY_KEY_NOT_FOUND');
    await deployKeys.link(keyId, project.id, false, new Date().toISOString());
    return this.find(project, keyId);
  }

  /**
   * A deleted project: its links go, and keys no other project uses. The links may already be
   * gone (foreign-key cascade when the project row was deleted), so unused keys are swept.
   */
  async forgetProject(projectId: number): Promise<void> {
    await this.context.stores.deployKeys.unlinkProject(projectId);
    await this.context.stores.deployKeys.deleteUnused();
  }

  private async unlink(projectId: number, keyId: number): Promise<void> {
    const { deployKeys } = this.context.stores;
    await deployKeys.unlink(keyId, projectId);
    if ((await deployKeys.projectIds(keyId)).length === 0) await deployKeys.delete(keyId);
  }

  private async canUse(keyId: number, actor: UserRecord): Promise<boolean> {
    if (actor.is_admin) return true;
    for (const projectId of await this.context.stores.deployKeys.projectIds(keyId)) {
      const other = await this.context.stores.projects.findById(projectId);
      if (other && (await this.context.permissions.projectLevelAtLeast(other, actor, GUEST))) return true;
    }
    return false;
  }
}

/** Drops what hangs off a deleted project: protected branches, releases, deploy key links (and keys only it used). */
export function cleanUpRepositoryProtection(context: CoordinatorContext): void {
  const deployKeys = new DeployKeysService(context);
  context.events.onProjectDeleted(async ({ project_id: projectId }) => {
    await context.protectedBranches.removeAll(projectId);
    await context.stores.releases.deleteForProject(projectId);
    await deployKeys.forgetProject(projectId);
  });
}
