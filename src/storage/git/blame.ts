import type { ObjectReader } from './reader.ts';
import { gitText } from './run.ts';
import type { GitBlameRange } from './types.ts';

const HEADER = /^([0-9a-f]{40,64}) \d+ \d+(?: \d+)?$/;

/** Lines of `git blame --porcelain` grouped into runs of consecutive lines from one commit. */
export function parseBlamePorcelain(output: string): Array<{ commitId: string; lines: string[] }> {
  const runs: Array<{ commitId: string; lines: string[] }> = [];
  let current: string | null = null;
  for (const line of output.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      current = header[1]!;
      continue;
    }
    if (!line.startsWith('\t') || current === null) continue;
    const last = runs.at(-1);
    if (last && last.commitId === current) last.lines.push(line.slice(1));
    else runs.push({ commitId: current, lines: [line.slice(1)] });
  }
  return runs;
}

/** Who last changed each line of a file (a checked path of a blob) at a commit. */
export async function blameFile(gitDir: string, reader: ObjectReader, commitId: string, path: string): Promise<GitBlameRange[]> {
  const runs = parseBlamePorcelain(await gitText(gitDir, ['blame', '--porcelain', commitId, '--', path]));
  const commits = new Map((await reader.commitList([...new Set(runs.map((run) => run.commitId))])).map((commit) => [commit.id, commit]));
  return runs.flatMap((run) => {
    const commit = commits.get(run.commitId);
    return commit ? [{ commit, lines: run.lines }] : [];
  });
}
