import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from '#deps/execa';
import { silentLogger } from '../../../src/shared/logger.ts';
import { createRepositoryManager, type GitRepositoryManager } from '../../../src/storage/git/index.ts';

export const ANN = { name: 'Ann Author', email: 'ann@example.com' };
export const BOB = { name: 'Bob Builder', email: 'bob@example.com' };

export interface GitFixture {
  root: string;
  manager: GitRepositoryManager;
  cleanup(): Promise<void>;
}

export async function gitFixture(catFile?: { idleMs?: number; maxProcesses?: number }): Promise<GitFixture> {
  const root = await mkdtemp(path.join(tmpdir(), 'gantry-git-test-'));
  const manager = createRepositoryManager({ root: path.join(root, 'repositories'), logger: silentLogger(), catFile });
  return {
    root,
    manager,
    async cleanup() {
      await manager.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** The git CLI for test setup and cross-checks, isolated from the user's configuration. */
export async function git(gitDir: string, args: string[], input?: string | Buffer): Promise<string> {
  const result = await execa('git', [`--git-dir=${gitDir}`, ...args], {
    input,
    env: {
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      LC_ALL: 'C',
      GIT_AUTHOR_NAME: ANN.name,
      GIT_AUTHOR_EMAIL: ANN.email,
      GIT_COMMITTER_NAME: ANN.name,
      GIT_COMMITTER_EMAIL: ANN.email,
    },
  });
  return result.stdout;
}

export interface ImportedCommit {
  message: string;
  /** Seconds since the epoch (author and committer). */
  time: number;
  files: Record<string, string | null>;
  author?: { name: string; email: string };
}

/** Writes a linear history onto `branch` with git fast-import: exact dates, no working tree. */
export async function importCommits(gitDir: string, branch: string, commits: ImportedCommit[]): Promise<void> {
  const chunks: string[] = [];
  commits.forEach((commit, index) => {
    const who = commit.author ?? ANN;
    const message = Buffer.from(commit.message);
    chunks.push(`commit refs/heads/${branch}\nmark :${index + 1}\n`);
    chunks.push(`author ${who.name} <${who.email}> ${commit.time} +0000\ncommitter ${who.name} <${who.email}> ${commit.time} +0000\n`);
    chunks.push(`data ${message.length}\n${commit.message}\n`);
    if (index > 0) chunks.push(`from :${index}\n`);
    for (const [file, content] of Object.entries(commit.files)) {
      if (content === null) chunks.push(`D ${file}\n`);
      else chunks.push(`M 100644 inline ${file}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
    }
  });
  await git(gitDir, ['fast-import', '--quiet'], chunks.join(''));
}
