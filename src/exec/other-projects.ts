/**
 * `--project PATH=DIR`: another repository of yours as the project PATH of the local
 * coordinator, so that `include:project: PATH` (and `trigger:project: PATH`, and a job's clone
 * of it) finds it as on the server. Like the working tree's project it borrows the repository's
 * objects (no push); its branches and tags are DIR's, and its default branch is DIR's current
 * branch holding DIR's working tree as it is now (uncommitted and untracked files included;
 * with `--committed` its HEAD), so a change to a template can be tried before it is committed.
 * `.gantry/projects.yml` keeps them for every run (`group/templates: ../templates`, DIR from
 * the top of the working tree); a `--project` of the same PATH wins.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectRecord } from '../storage/types.ts';
import { ExecError } from './errors.ts';
import { lendObjects, readHead, snapshotCommit, workingTreeRoot } from './git.ts';
import { ignoreLocalState } from './local-state.ts';
import { localMapping } from './local-variables.ts';
import { createProjectAt, repositoryPath } from './project-placement.ts';
import type { LocalCoordinator } from './session.ts';

export interface OtherProject {
  /** Its full path in the local coordinator (`group/sub/templates`). */
  path: string;
  /** The working tree it is made of (absolute). */
  dir: string;
}

/** GitLab's rule for a group or project path segment. */
const PATH_SEGMENT = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;
/** GitLab's deepest group nesting, plus the project. */
const MAX_SEGMENTS = 21;
/** Other projects one run makes at the most (each costs a few git processes). */
export const MAX_OTHER_PROJECTS = 20;

/** A `--project PATH=DIR` flag, DIR relative to `cwd`; throws a one-line error for a malformed one. */
export function parseOtherProject(pair: string, cwd: string): OtherProject {
  const at = pair.indexOf('=');
  if (at <= 0 || at === pair.length - 1) throw new Error(`--project expects PATH=DIR, got "${pair}"`);
  const fullPath = pair.slice(0, at).replace(/^\/+|\/+$/g, '');
  const segments = fullPath.split('/');
  const valid = segments.length >= 2 && segments.length <= MAX_SEGMENTS && segments.every((segment) => PATH_SEGMENT.test(segment) && !/(\.git|\.atom|\.)$/.test(segment));
  if (!valid) throw new Error(`--project ${fullPath}: not a project path (a group and a project at least, as group/templates)`);
  return { path: fullPath, dir: path.resolve(cwd, pair.slice(at + 1)) };
}

export const PROJECTS_FILE = path.join('.gantry', 'projects.yml');

/** The projects of `.gantry/projects.yml` (none without the file); a malformed file is a one-line error naming it. */
export async function readProjectsFile(root: string): Promise<OtherProject[]> {
  const text = await readFile(path.join(root, PROJECTS_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (text === null) return [];
  return Object.entries(localMapping(text, PROJECTS_FILE, 'project paths to directories')).map(([fullPath, dir]) => {
    if (typeof dir !== 'string' || dir === '') throw new ExecError(`${PROJECTS_FILE}: ${fullPath}: expected a directory`);
    try {
      return parseOtherProject(`${fullPath}=${dir}`, root);
    } catch (refused) {
      throw new ExecError(`${PROJECTS_FILE}: ${(refused instanceof Error ? refused.message : String(refused)).replace(/^--project /, '')}`);
    }
  });
}

/** The file's projects with the flags' over them, by path. */
export function mergedProjects(fromFile: readonly OtherProject[], fromFlags: readonly OtherProject[]): OtherProject[] {
  const byPath = new Map<string, OtherProject>();
  for (const project of [...fromFile, ...fromFlags]) byPath.set(project.path, project);
  return [...byPath.values()];
}

/** Makes each project in the local coordinator; a path already taken (the working tree's own, say) is an error. */
export async function provideOtherProjects(local: LocalCoordinator, projects: readonly OtherProject[], committed: boolean): Promise<ProjectRecord[]> {
  if (projects.length > MAX_OTHER_PROJECTS) throw new ExecError(`--project: at most ${MAX_OTHER_PROJECTS} projects`);
  const made: ProjectRecord[] = [];
  for (const project of projects) made.push(await provideOtherProject(local, project, committed));
  return made;
}

async function provideOtherProject(local: LocalCoordinator, other: OtherProject, committed: boolean): Promise<ProjectRecord> {
  const root = await workingTreeRoot(other.dir).catch(() => {
    throw new ExecError(`--project ${other.path}: not a git working tree: ${other.dir}`);
  });
  const head = await readHead(root);
  if (head.sha === null && committed) throw new ExecError(`--project ${other.path}: ${root} has no commit yet`);
  await ignoreLocalState(root);
  const snapshot = await snapshotCommit(root, head, committed);
  const segments = other.path.split('/');
  const defaultBranch = head.branch ?? head.defaultBranch;
  // Public: a job's token reads its own project only (as on GitLab with a job token allowlist), anyone a public one.
  const project = await createProjectAt(local, { groups: segments.slice(0, -1), path: segments[segments.length - 1]! }, defaultBranch, 'public');
  if (project === null) throw new ExecError(`--project ${other.path}: the local coordinator refused the path (taken, or a name it reserves)`);
  await lendObjects(root, await repositoryPath(local, project));
  await setRefs(local, project, { ...head, defaultBranch }, snapshot.sha);
  return project;
}

/** DIR's branches and tags, the default branch at the snapshot; set directly, as no push pipeline may start. */
async function setRefs(local: LocalCoordinator, project: ProjectRecord, head: Awaited<ReturnType<typeof readHead>>, snapshot: string): Promise<void> {
  const repository = local.coordinator.context.repositories.open(project.id);
  await repository.createBranch(head.defaultBranch, snapshot);
  await repository.importBranches(head.branches.filter((branch) => branch.name !== head.defaultBranch));
  await repository.importTags(head.tags);
}
