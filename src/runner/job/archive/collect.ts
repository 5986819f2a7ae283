/**
 * Brings the files an artifacts or cache entry selects out of the environment into a
 * staging directory on this machine (only the directories the patterns need are copied out).
 */
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { extractInto } from '../../../executors/tar.ts';
import type { JobContext } from '../context.ts';
import { trackedFiles } from '../sources.ts';
import { copyRoots, selector, type Selection, type Selector } from './select.ts';

export interface Collected {
  staging: string;
  select: Selector;
}

export async function collect(context: JobContext, selection: Selection, label: string): Promise<Collected> {
  const staging = await mkdtemp(path.join(context.workDir, `${label}-`));
  const tracked = selection.untracked ? await trackedFiles(context.sourcesDir) : new Set<string>();
  const select = selector(selection, tracked);
  const projectDir = context.environment.info.projectDir;
  for (const root of copyRoots(selection)) {
    const stream = await context.environment.copyOut(root ? path.posix.join(projectDir, root) : projectDir);
    if (!stream) continue;
    // The directory a pattern names is itself one of the matches.
    if (root) select(root, 'directory');
    await extractInto(stream, root ? path.join(staging, root) : staging, (name, type) => select(root ? `${root}/${name}` : name, type));
  }
  return { staging, select };
}
