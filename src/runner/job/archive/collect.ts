/**
 * The files an artifacts or cache entry selects, to be archived: listed where they are when the
 * project is on this machine (in-place.ts), else brought out of the environment into a staging
 * directory here (only the directories the patterns need are copied out).
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { extractInto } from '../../../executors/tar.ts';
import type { JobContext } from '../context.ts';
import { trackedFiles } from '../sources.ts';
import { expandValue } from '../variables.ts';
import { entriesInPlace } from './in-place.ts';
import { copyRoots, selector, type Selection, type Selector } from './select.ts';
import { stagedEntries, type StagedEntry } from './write.ts';

export interface Collected {
  entries: StagedEntry[];
  select: Selector;
  /** Selected names that cannot be archived (not UTF-8), as the log shows them: left out. */
  unarchivable: string[];
}

/** The warning for a name `collect` left out: what it is, and that the archive lacks it. */
export const unarchivableLine = (name: string): string => `${name}: name is not UTF-8, left out of the archive`;

export async function collect(context: JobContext, given: Selection, label: string): Promise<Collected> {
  const projectDir = context.environment.info.projectDir;
  const { selection, labels } = resolvePatterns(given, context, projectDir);
  const tracked = selection.untracked ? await trackedFiles(context.sourcesDir) : new Set<string>();
  const select = selector(selection, tracked, labels);
  const here = context.environment.info.hostProjectDir;
  if (here !== null) return { ...(await entriesInPlace(here, copyRoots(selection), select)), select };
  const staging = await mkdtemp(path.join(context.workDir, `${label}-`));
  const unarchivable = new Set<string>();
  for (const root of copyRoots(selection)) {
    const stream = await context.environment.copyOut(root ? path.posix.join(projectDir, root) : projectDir);
    if (!stream) continue;
    // The directory a pattern names is itself one of the matches.
    if (root) select(root, 'directory');
    // A link is archived as a link, whatever it points at, as gitlab-runner's archiver does.
    await extractInto(stream, root ? path.join(staging, root) : staging, (name, type) => {
      const named = root ? `${root}/${name}` : name;
      const bad = notUtf8Prefix(named);
      if (bad === null) return select(named, type);
      // Left out and named once (what is below it with it), as the in-place listing does.
      if (bad !== named || type === 'directory' || select(named, type)) unarchivable.add(bad);
      return false;
    }, { anySymlinkTarget: true });
  }
  return { entries: await stagedEntries(staging), select, unarchivable: [...unarchivable] };
}

/**
 * The path down to the first name the archive's reader could not decode as UTF-8 (it reads
 * such bytes as U+FFFD, the bytes themselves gone), or null: a name that is not UTF-8, which
 * the zip writer cannot take, as in-place.ts finds it on this machine.
 */
function notUtf8Prefix(name: string): string | null {
  const parts = name.split('/');
  const bad = parts.findIndex((part) => part.includes('\uFFFD'));
  return bad === -1 ? null : parts.slice(0, bad + 1).join('/');
}

/**
 * gitlab-runner's reading of `paths` and `exclude`: the job's variables expanded (`$VAR`,
 * `${VAR}`), and an absolute path inside the project directory taken relative to it; the
 * labels keep each as expanded, as gitlab-runner's archiver names it in its lines.
 */
function resolvePatterns(selection: Selection, context: JobContext, projectDir: string): { selection: Selection; labels: Map<string, string> } {
  const labels = new Map<string, string>();
  const resolve = (pattern: string): string => {
    const expanded = expandValue(pattern, context.variables);
    const relative = expanded.startsWith(`${projectDir}/`) ? expanded.slice(projectDir.length + 1) : expanded;
    if (relative !== expanded && !labels.has(relative)) labels.set(relative, expanded);
    return relative;
  };
  return { selection: { ...selection, paths: selection.paths.map(resolve), ...(selection.exclude ? { exclude: selection.exclude.map(resolve) } : {}) }, labels };
}
