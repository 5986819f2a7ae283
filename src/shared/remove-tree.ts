/**
 * `rm -rf` that also removes what a job made read-only (`chmod -R a-w dir`): a directory
 * without its owner's write bit keeps its entries from anyone but root, so on a permission
 * error the tree's directories are given back `u+rwx` and the removal is tried once more.
 */
import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';

export async function removeTree(target: string): Promise<void> {
  try {
    await rm(target, { recursive: true, force: true });
  } catch (error) {
    if (!isPermissionError(error)) throw error;
    await unlockDirectories(target);
    await rm(target, { recursive: true, force: true });
  }
}

function isPermissionError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/** Gives every directory of the tree (symlinks not followed) its owner's read, write and search bits. */
async function unlockDirectories(directory: string): Promise<void> {
  const found = await lstat(directory).catch(() => null);
  if (!found?.isDirectory()) return;
  if ((found.mode & 0o700) !== 0o700) await chmod(directory, (found.mode & 0o7777) | 0o700).catch(() => undefined);
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (entry.isDirectory()) await unlockDirectories(path.join(directory, entry.name));
  }
}
