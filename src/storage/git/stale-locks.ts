import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile } from '../fs/durable.ts';

const TOP_LEVEL_LOCKS = ['HEAD.lock', 'config.lock', 'packed-refs.lock'];

/**
 * Removes the lock files of one repository last modified before `before` (milliseconds since
 * the epoch): what a git process killed mid-update left. git holds a ref, HEAD or config lock
 * for milliseconds, so a lock older than a dead coordinator's last heartbeat is nobody's,
 * while a live coordinator's fresh lock is left alone. Answers the removed paths, relative to
 * the repository.
 */
export async function removeStaleLocks(gitDir: string, before: number): Promise<string[]> {
  const candidates: string[] = [...TOP_LEVEL_LOCKS];
  const refs = await readdir(path.join(gitDir, 'refs'), { recursive: true, withFileTypes: true }).catch((error: unknown) => {
    if (isMissingFile(error)) return [];
    throw error;
  });
  for (const entry of refs) {
    if (entry.isFile() && entry.name.endsWith('.lock')) candidates.push(path.relative(gitDir, path.join(entry.parentPath, entry.name)));
  }
  const removed: string[] = [];
  for (const relative of candidates) {
    const file = path.join(gitDir, relative);
    const modified = await stat(file).then(
      (stats) => stats.mtimeMs,
      (error: unknown) => {
        if (isMissingFile(error)) return null;
        throw error;
      },
    );
    if (modified === null || modified >= before) continue;
    await rm(file, { force: true });
    removed.push(relative.split(path.sep).join('/'));
  }
  return removed;
}
