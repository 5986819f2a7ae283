/**
 * Submodules with a relative URL (`../lib`, `../../tools/x.git`): on the server, projects beside
 * the project, which the runner's `git submodule` clones with the job's token when
 * `GIT_SUBMODULE_STRATEGY` asks. Here each becomes a project at that path in the local
 * coordinator, borrowing the objects of your checkout of it, with a branch at the commit the
 * snapshot records; its own submodules likewise, 3 levels deep. A submodule with an absolute
 * URL, or that you have not checked out, is fetched from where its URL says, as on a runner's
 * machine.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ProjectRecord } from '../storage/types.ts';
import { lendObjects, recordedSubmodules, submoduleGitDir } from './git.ts';
import { createProjectAt, repositoryPath } from './project-placement.ts';
import type { LocalCoordinator } from './session.ts';

const MAX_DEPTH = 3;
/** Submodules made in one run at the most (each costs a few git processes). */
const MAX_SUBMODULES = 50;
/** GitLab's path rule for a group or project segment. */
const PATH_SEGMENT = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;

/** Makes the projects of the snapshot's submodules (nothing without a `.gitmodules`). */
export async function provideSubmodules(local: LocalCoordinator, project: ProjectRecord, root: string, snapshot: string): Promise<void> {
  if (!existsSync(path.join(root, '.gitmodules'))) return;
  const made = { count: 0 };
  await provideLevel(local, { fullPath: await fullPathOf(local, project), gitDir: root, workTree: root, commit: snapshot }, 1, made);
}

interface Superproject {
  /** Its path in the local coordinator (`group/app`). */
  fullPath: string;
  /** Where its objects and `modules/` are (a working tree or a git directory). */
  gitDir: string;
  workTree: string | null;
  commit: string;
}

async function provideLevel(local: LocalCoordinator, superproject: Superproject, depth: number, made: { count: number }): Promise<void> {
  for (const submodule of await recordedSubmodules(superproject.gitDir, superproject.commit)) {
    if (made.count >= MAX_SUBMODULES) return;
    const target = relativeProjectPath(superproject.fullPath, submodule.url);
    if (target === null) continue;
    const gitDir = await submoduleGitDir(superproject.gitDir, superproject.workTree, submodule);
    if (gitDir === null) continue;
    made.count += 1;
    await provideProject(local, target, gitDir, submodule.commit);
    if (depth < MAX_DEPTH) await provideLevel(local, { fullPath: target.join('/'), gitDir, workTree: null, commit: submodule.commit }, depth + 1, made);
  }
}

/** The project at `target` holding `commit` on a branch: made and lent `gitDir`'s objects, or given one more branch. */
async function provideProject(local: LocalCoordinator, target: string[], gitDir: string, commit: string): Promise<void> {
  const { stores, repositories } = local.coordinator.context;
  const groups = target.slice(0, -1);
  const name = target[target.length - 1]!;
  // Public: a job's token reads its own project only (as on GitLab with a job token allowlist), anyone a public one.
  let project = await createProjectAt(local, { groups, path: name }, 'main', 'public');
  if (project) {
    await lendObjects(gitDir, await repositoryPath(local, project));
    await repositories.open(project.id).createBranch('main', commit);
    return;
  }
  // Made already (two submodules of one project): another branch holds this commit too.
  const namespace = await stores.namespaces.findByFullPath(groups.join('/'));
  project = namespace ? ((await stores.projects.findByNamespaceAndPath(namespace.id, name)) ?? null) : null;
  if (!project) return;
  await lendObjects(gitDir, await repositoryPath(local, project));
  await repositories.open(project.id).createBranch(`submodule-${commit.slice(0, 12)}`, commit).catch(() => undefined);
}

/**
 * Where a relative submodule URL points from the superproject's clone URL
 * (`<server>/group/app.git`), as git resolves it: `../lib` is `group/lib`. Null for an absolute
 * URL, one that leaves the server's root, or a path GitLab could not have.
 */
export function relativeProjectPath(superproject: string, url: string): string[] | null {
  if (!url.startsWith('./') && !url.startsWith('../')) return null;
  const segments = [...superproject.split('/').slice(0, -1), `${superproject.split('/').pop()!}.git`];
  for (const part of url.replace(/\/+$/, '').split('/')) {
    if (part === '.' || part === '') continue;
    if (part === '..') {
      if (segments.pop() === undefined) return null;
    } else segments.push(part);
  }
  const last = segments.pop()?.replace(/\.git$/, '');
  if (last === undefined) return null;
  const target = [...segments, last];
  // A project is in a namespace: a path of one segment names none.
  return target.length >= 2 && target.every((segment) => PATH_SEGMENT.test(segment) && !/\.(git|atom)$/.test(segment)) ? target : null;
}

async function fullPathOf(local: LocalCoordinator, project: ProjectRecord): Promise<string> {
  const namespace = await local.coordinator.context.stores.namespaces.findById(project.namespace_id);
  return namespace ? `${namespace.full_path}/${project.path}` : project.path;
}
