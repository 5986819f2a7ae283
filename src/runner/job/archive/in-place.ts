/**
 * The entries an artifacts or cache entry selects, listed where they are when the project is
 * on this machine (the shell executor), instead of copied out into a staging directory first:
 * a cache of thousands of files was written once more, and deleted, before it was zipped.
 * The list is what the staging directory would have held, in stagedEntries' order: each root
 * directory the patterns need and the directories above it, every selected entry, and the
 * directories above those (the copy made them too).
 * A name that is not UTF-8 cannot be archived (the zip writer takes names as text): it is left
 * out and named in `unarchivable`, so the job's log says so instead of losing it silently.
 */
import { lstatSync, statSync, type Stats } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { LoopTurns } from '../../../shared/loop-turns.ts';
import { utf8Text } from '../../../shared/utf8.ts';
import type { Selector } from './select.ts';
import type { StagedEntry } from './write.ts';

type EntryType = StagedEntry['type'];

const typeOf = (stat: Stats): EntryType | null => (stat.isDirectory() ? 'directory' : stat.isSymbolicLink() ? 'symlink' : stat.isFile() ? 'file' : null);

/** Order of a walk that lists each directory's names sorted, a directory before what it holds. */
function walkOrder(a: StagedEntry, b: StagedEntry): number {
  const left = a.name.split('/');
  const right = b.name.split('/');
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    if (left[index] !== right[index]) return left[index] < right[index] ? -1 : 1;
  }
  return left.length - right.length;
}

export interface InPlaceEntries {
  entries: StagedEntry[];
  /** Selected names (or directories not searched) that are not UTF-8, their bad bytes as `\xNN`, left out. */
  unarchivable: string[];
}

/** A name that is not UTF-8 for a log line: printable ASCII as it is, every other byte as `\xNN`. */
function escapedName(bytes: Buffer): string {
  let text = '';
  for (const byte of bytes) text += byte >= 0x20 && byte < 0x7f && byte !== 0x5c ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  return text;
}

/**
 * What `select` takes below `roots` (`''` the project directory itself) of `projectDir`, as
 * entries to zip from where they are. A root that is not a directory (or a link to one, as
 * copying it out follows it) brings nothing. `.git` is never walked: select refuses it.
 */
export async function entriesInPlace(projectDir: string, roots: readonly string[], select: Selector): Promise<InPlaceEntries> {
  const listed = new Map<string, StagedEntry>();
  const unarchivable = new Set<string>();
  const list = (name: string, absolute: string, stat: Stats, type: EntryType): void => {
    if (!listed.has(name)) listed.set(name, { name, absolute, type, mode: stat.mode & 0o7777, mtime: stat.mtime, size: type === 'file' ? stat.size : 0 });
  };
  /** The directories above `name`, down to the one holding it. */
  const listParents = (name: string): void => {
    const parts = name.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      if (listed.has(parent)) continue;
      const absolute = path.join(projectDir, parent);
      list(parent, absolute, statSync(absolute), 'directory');
    }
  };
  const turns = new LoopTurns();
  const walk = async (relative: string): Promise<void> => {
    const byteNames = await readdir(path.join(projectDir, relative), { encoding: 'buffer' }).catch(() => [] as Buffer[]);
    const named = byteNames.map((bytes) => ({ bytes, name: utf8Text(bytes) }));
    const names = named.flatMap(({ name }) => (name === null ? [] : [name])).sort();
    for (const { bytes, name } of named) {
      if (name !== null) continue;
      // A name that is not UTF-8 is looked at through its bytes: a decoded one names nothing.
      const stat = lstatSync(Buffer.concat([Buffer.from(path.join(projectDir, relative, '/')), bytes]), { throwIfNoEntry: false });
      const type = stat ? typeOf(stat) : null;
      const shown = `${relative ? `${relative}/` : ''}${escapedName(bytes)}`;
      if (type === 'directory' || (type !== null && select(shown, type))) unarchivable.add(shown);
    }
    for (const name of names) {
      await turns.pause();
      const entryName = relative ? `${relative}/${name}` : name;
      if (entryName === '.git') continue;
      const absolute = path.join(projectDir, entryName);
      const stat = lstatSync(absolute, { throwIfNoEntry: false });
      const type = stat ? typeOf(stat) : null;
      if (!stat || !type) continue;
      if (select(entryName, type)) {
        listParents(entryName);
        list(entryName, absolute, stat, type);
      }
      if (type === 'directory') await walk(entryName);
    }
  };
  for (const root of roots) {
    const absolute = root ? path.join(projectDir, root) : projectDir;
    const found = statSync(absolute, { throwIfNoEntry: false });
    if (!found?.isDirectory()) continue;
    if (root) {
      // The directory a pattern names is itself one of the matches; the copy made it either way.
      select(root, 'directory');
      listParents(root);
      list(root, absolute, found, 'directory');
    }
    await walk(root);
  }
  return { entries: [...listed.values()].sort(walkOrder), unarchivable: [...unarchivable] };
}
