import type { Readable } from 'node:stream';
import type { ObjectReader } from './reader.ts';
import { streamGit } from './run.ts';
import type { GitBlameLine, GitCommit } from './types.ts';

/** "<sha> <orig line> <final line>[ <lines in group>]" starts every line's record. */
const HEADER = /^([0-9a-f]{40,64}) \d+ (\d+)(?: \d+)?$/;

/** A line's record of `git blame --porcelain`: which commit, which final line number, its text. */
export interface PorcelainLine {
  commitId: string;
  lineNumber: number;
  text: string;
}

/**
 * Incremental parser of `git blame --porcelain`: feed it output lines (without their
 * newline) and it answers each file line once its record is complete. Header fields
 * (author, summary...) are skipped: commits are read through cat-file.
 */
export class PorcelainParser {
  private commitId: string | null = null;
  private lineNumber = 0;

  push(line: string): PorcelainLine | null {
    if (line.startsWith('\t')) {
      if (this.commitId === null) return null;
      return { commitId: this.commitId, lineNumber: this.lineNumber, text: line.slice(1) };
    }
    const header = HEADER.exec(line);
    if (header) {
      this.commitId = header[1]!;
      this.lineNumber = Number(header[2]);
    }
    return null;
  }
}

/** Lines of a stream (split on LF, decoded as UTF-8), a chunk's worth at a time, pulled as the consumer asks. */
export async function* streamLines(source: Readable): AsyncGenerator<string[]> {
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    const buffer: Buffer = rest.length > 0 ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
    const lines: string[] = [];
    let start = 0;
    let newline = buffer.indexOf(10);
    while (newline >= 0) {
      lines.push(buffer.toString('utf8', start, newline));
      start = newline + 1;
      newline = buffer.indexOf(10, start);
    }
    rest = buffer.subarray(start);
    if (lines.length > 0) yield lines;
  }
  if (rest.length > 0) yield [rest.toString('utf8')];
}

export interface BlameOptions {
  /** 1-based, inclusive; lines outside are skipped and git is stopped after the last one. */
  range?: { start: number; end: number };
  lowPriority?: boolean;
}

/**
 * Who last changed each line of a file (a checked path of a blob) at a commit, streamed in
 * batches: git's porcelain output is parsed as it arrives and nothing but the commits seen so
 * far is kept, so memory does not grow with the file. Stopping the iteration kills git.
 */
export async function* blameLines(gitDir: string, reader: ObjectReader, commitId: string, path: string, options: BlameOptions = {}): AsyncGenerator<GitBlameLine[]> {
  const output = streamGit(gitDir, ['blame', '--porcelain', commitId, '--', path], { lowPriority: options.lowPriority });
  const parser = new PorcelainParser();
  const commits = new Map<string, GitCommit | null>();
  const { start, end } = options.range ?? { start: 1, end: Number.POSITIVE_INFINITY };
  try {
    for await (const texts of streamLines(output)) {
      const batch: GitBlameLine[] = [];
      for (const text of texts) {
        const line = parser.push(text);
        if (!line || line.lineNumber < start) continue;
        if (line.lineNumber > end) {
          if (batch.length > 0) yield batch;
          return;
        }
        let commit = commits.get(line.commitId);
        if (commit === undefined) {
          commit = await reader.commit(line.commitId);
          commits.set(line.commitId, commit);
        }
        if (commit) batch.push({ commit, line: line.text, lineNumber: line.lineNumber });
      }
      if (batch.length > 0) yield batch;
    }
  } finally {
    output.destroy();
  }
}
