/**
 * A build directory an earlier job of the slot used, brought back to what a new one would give
 * the next job (`runner exec`'s shell jobs): the earlier checkout's files stay where the next
 * checkout would write them again, and everything else goes. On a tree of thousands of files,
 * writing the clone is most of a job's cost (on ext4 without a journal, a file made soon after
 * many were deleted costs more still); a checkout over the kept files writes only those that
 * differ. No git process runs here, and nothing a job wrote in `.git` is read but the index.
 */
import { lstat, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { removeTree } from '../../shared/remove-tree.ts';
import { utf8Text } from '../../shared/utf8.ts';
import { readIndexListing, type IndexListing } from './git-index.ts';

/**
 * Empties `buildsDir`, but keeps the checkout at `projectDir` when `recyclable` and it can be
 * cleaned; answers whether it was kept. A kept checkout loses what its index does not track, as
 * `git clean -ffdx` would (untracked and ignored files, repositories inside it), and in `.git`
 * all but the index: settings, refs, hooks and the objects a job wrote. An index with entries a
 * checkout would trust or skip (git-index.ts), a link where a directory belongs or a name that
 * is not UTF-8 empties the directory instead.
 */
export async function recycleBuildDirectory(buildsDir: string, projectDir: string, recyclable: boolean): Promise<boolean> {
  const inside = path.relative(buildsDir, projectDir);
  const kept = recyclable && inside !== '' && !inside.startsWith('..') && !path.isAbsolute(inside) && (await keepCheckout(buildsDir, inside.split(path.sep)));
  if (!kept) {
    await removeTree(buildsDir);
    await mkdir(buildsDir, { recursive: true });
  }
  return kept;
}

async function keepCheckout(buildsDir: string, parts: string[]): Promise<boolean> {
  const projectDir = path.join(buildsDir, ...parts);
  const gitDir = path.join(projectDir, '.git');
  const [repository, index] = await Promise.all([lstat(gitDir).catch(() => null), readFile(path.join(gitDir, 'index')).catch(() => null)]);
  const listing = repository?.isDirectory() && index !== null ? readIndexListing(index) : null;
  if (listing === null) return false;
  // What lies beside the project directory, at each level down to it.
  let directory = buildsDir;
  for (const part of parts) {
    const found = await lstat(directory).catch(() => null);
    if (!found?.isDirectory()) return false;
    await removeAllBut(directory, [part]);
    directory = path.join(directory, part);
  }
  await removeAllBut(gitDir, ['index']);
  return removeUntracked(projectDir, '', listing);
}

/** Names read as bytes: one that is not UTF-8 goes by the name it has, not by a decoding of it that names nothing. */
async function removeAllBut(directory: string, keep: readonly string[]): Promise<void> {
  const entries = await readdir(directory, { encoding: 'buffer' });
  const kept = keep.map((name) => Buffer.from(name));
  const parent = Buffer.from(`${directory}${path.sep}`);
  await Promise.all(entries.filter((entry) => !kept.some((name) => name.equals(entry))).map((entry) => removeTree(Buffer.concat([parent, entry]))));
}

/** Removes what under `relative` the index does not list; false when a name is not UTF-8 (the caller empties the directory). */
async function removeUntracked(projectDir: string, relative: string, listing: IndexListing): Promise<boolean> {
  const entries = await readdir(path.join(projectDir, relative), { withFileTypes: true, encoding: 'buffer' });
  const outcomes = await Promise.all(
    entries.map(async (entry) => {
      const name = utf8Text(entry.name);
      if (name === null) return false;
      if (relative === '' && name === '.git') return true;
      const tracked = relative === '' ? name : `${relative}/${name}`;
      if (entry.isDirectory() && listing.directories.has(tracked)) return removeUntracked(projectDir, tracked, listing);
      // A file, link or directory the index does not list (a directory where it lists a file too).
      if (entry.isDirectory() || !listing.files.has(tracked)) await removeTree(path.join(projectDir, tracked));
      return true;
    }),
  );
  return outcomes.every(Boolean);
}
