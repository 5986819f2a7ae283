import type { GitRepository } from '../../../storage/git/types.ts';
import type { ProjectRecord, ProjectsStore } from '../../../storage/types.ts';
import type { PushEvent } from '../events.ts';
import type { ProtectedBranchesService } from './protected-branches.ts';

const ZERO_SHA = '0'.repeat(40);
const BRANCH_PREFIX = 'refs/heads/';

export interface DefaultBranchDeps {
  projects: Pick<ProjectsStore, 'findById' | 'update'>;
  repositories: { open(projectId: number): Pick<GitRepository, 'defaultBranch' | 'setDefaultBranch' | 'branches'> };
  protectedBranches: Pick<ProtectedBranchesService, 'protectDefaultBranch'>;
}

/**
 * A project's first branch, as GitLab's branch hooks and ProtectDefaultBranchService do it: when
 * a branch is created while HEAD names none that exists (the first push to an empty repository,
 * of `master` say), HEAD is pointed at the branch Gitaly would name the default, and the project
 * records it; once created, the default branch gets a protected-branch rule with the levels of
 * `default_branch_protection`, unless a rule already covers it. A push recorder: it runs before
 * the push is acknowledged, so the branch is never seen unprotected.
 */
export class DefaultBranchOnCreation {
  constructor(private readonly deps: DefaultBranchDeps) {}

  async recordPush(push: PushEvent): Promise<void> {
    if (push.before !== ZERO_SHA || push.after === ZERO_SHA || !push.ref.startsWith(BRANCH_PREFIX)) return;
    const project = await this.deps.projects.findById(push.project_id);
    const branch = push.ref.slice(BRANCH_PREFIX.length);
    // A project whose default branch is another one: nothing to read in the repository (a push of many new branches).
    if (!project || (project.default_branch !== null && project.default_branch !== branch)) return;
    const repository = this.deps.repositories.open(project.id);
    let current = await repository.defaultBranch();
    if (current === null) {
      current = await defaultOf(repository, branch);
      await repository.setDefaultBranch(current);
    }
    if (current !== branch) return;
    await this.protect(project, branch);
  }

  /** A project made with a first commit (a README, a fork): its default branch is protected as after a first push. */
  async recordCreated(project: ProjectRecord): Promise<void> {
    if (project.default_branch !== null) await this.protect(project, project.default_branch);
  }

  private async protect(project: ProjectRecord, branch: string): Promise<void> {
    const recorded = project.default_branch === branch ? project : ((await this.deps.projects.update(project.id, { default_branch: branch })) ?? project);
    await this.deps.protectedBranches.protectDefaultBranch(recorded, branch);
  }
}

/** Gitaly's choice when HEAD names no branch: the only branch, else `main`, else `master`, else the first by name. */
async function defaultOf(repository: Pick<GitRepository, 'branches'>, pushed: string): Promise<string> {
  const names = (await repository.branches()).map((branch) => branch.name).sort();
  if (names.length <= 1) return names[0] ?? pushed;
  if (names.includes('main')) return 'main';
  if (names.includes('master')) return 'master';
  return names[0]!;
}
