import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { TestCoordinator } from '../helpers/coordinator.ts';

/** A file of a commit: its content (null deletes it) and mode (a regular file by default). */
export interface ImportedFile {
  path: string;
  content: string | Buffer | null;
  mode?: '100644' | '100755' | '120000';
}

/** The bare repository of a project (the coordinator's layout). */
export function repositoryDir(gantry: TestCoordinator, projectId: number): string {
  return path.join(gantry.dataDir, 'repositories', `${projectId}.git`);
}

export function gitIn(gitDir: string, args: string[]): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();
}

/**
 * Writes one commit on `branch` (created or moved) whose parent is `from`, with `files`
 * changed, through `git fast-import`: thousands of files or a 50 MB one in a second. Answers its id.
 */
export function importCommit(gitDir: string, branch: string, from: string, message: string, files: ImportedFile[]): string {
  const parts: Buffer[] = [];
  const text = (value: string) => parts.push(Buffer.from(value));
  const data = (value: string | Buffer) => {
    const bytes = Buffer.from(value);
    text(`data ${bytes.length}\n`);
    parts.push(bytes);
    text('\n');
  };
  text(`commit refs/heads/${branch}\ncommitter Tester <tester@example.com> 1700000000 +0000\n`);
  data(message);
  text(`from ${from}\n`);
  for (const file of files) {
    if (file.content === null) {
      text(`D ${file.path}\n`);
      continue;
    }
    text(`M ${file.mode ?? '100644'} inline ${file.path}\n`);
    data(file.content);
  }
  text('\n');
  execFileSync('git', [`--git-dir=${gitDir}`, 'fast-import', '--quiet', '--force'], { input: Buffer.concat(parts), maxBuffer: 64 * 1024 * 1024 });
  return gitIn(gitDir, ['rev-parse', `refs/heads/${branch}`]);
}

/** `count` lines made by `line(index)` (index from 1), joined. */
export function lines(count: number, line: (index: number) => string): string {
  return Array.from({ length: count }, (_, index) => line(index + 1)).join('');
}
