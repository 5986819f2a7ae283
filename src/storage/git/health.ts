import { stat } from 'node:fs/promises';
import { gitText } from './run.ts';

/** Whether git can serve: the repositories directory is there and a git process runs. */
export type GitHealth = { ok: true; version: string } | { ok: false; step: 'repositories' | 'git'; error: unknown };

/**
 * Checks the git side of the data directory: `root` (the repositories directory) is a
 * directory, and `git --version` runs and answers in the isolated environment every git
 * process gets. `signal` kills git when the caller stops waiting.
 */
export async function checkGit(root: string, signal?: AbortSignal): Promise<GitHealth> {
  try {
    if (!(await stat(root)).isDirectory()) return { ok: false, step: 'repositories', error: new Error(`${root} is not a directory`) };
  } catch (error) {
    return { ok: false, step: 'repositories', error };
  }
  try {
    const version = (await gitText(null, ['--version'], { signal })).trim();
    if (!version.startsWith('git version ')) return { ok: false, step: 'git', error: new Error(`unexpected answer to git --version: ${version.slice(0, 100)}`) };
    return { ok: true, version: version.slice('git version '.length) };
  } catch (error) {
    return { ok: false, step: 'git', error };
  }
}
