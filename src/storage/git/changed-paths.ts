/**
 * The paths whose content differs between two commits (`git diff --name-only`, old and new
 * names of renames alike), read as git writes them and no further than the caller needs: a
 * diff against an old ref can name every file of a large repository, and `rules:changes`
 * decides with a bounded number of paths (ci/path-clauses.ts). Stopping early kills git.
 */
import { streamGit } from './run.ts';

/** Longer paths are cut here: no glob of 50 entries tells them apart past this. */
const MAX_PATH_BYTES = 16 * 1024;

export async function readChangedPaths(gitDir: string, from: string, to: string, limit: number): Promise<string[]> {
  const paths: string[] = [];
  if (limit <= 0) return paths;
  const diff = streamGit(gitDir, ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', from, to], { lowPriority: true });
  let partial: Buffer[] = [];
  let partialBytes = 0;
  const keep = (bytes: Buffer): void => {
    const room = MAX_PATH_BYTES - partialBytes;
    if (room <= 0 || bytes.length === 0) return;
    const kept = bytes.subarray(0, room);
    partial.push(kept);
    partialBytes += kept.length;
  };
  try {
    for await (const chunk of diff as AsyncIterable<Buffer>) {
      let start = 0;
      for (let end = chunk.indexOf(0, start); end !== -1; end = chunk.indexOf(0, start)) {
        keep(chunk.subarray(start, end));
        paths.push(Buffer.concat(partial).toString('utf8'));
        partial = [];
        partialBytes = 0;
        start = end + 1;
        if (paths.length >= limit) return paths;
      }
      keep(chunk.subarray(start));
    }
    return paths;
  } finally {
    diff.destroy();
  }
}
