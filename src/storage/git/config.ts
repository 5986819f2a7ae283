import { randomUUID } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Object checks of every push (`git fsck` on the received pack), as GitLab runs them: trees
 * with `.git` in any spelling git knows (`.GIT`, `git~1`, HFS-ignorable characters), `..`
 * entries, a `.gitmodules` symlink or one naming a submodule outside the repository or with
 * an option as its URL are refused. Like Gitaly, three cosmetic checks are off so that
 * ordinary old histories still push: bad time zones and a missing space before the date in
 * author lines (old git bugs), and zero-padded file modes (old git versions wrote `040000`).
 */
export const RECEIVE_FSCK_CONFIG: Readonly<Record<string, string>> = {
  'receive.fsckObjects': 'true',
  'receive.fsck.badTimezone': 'ignore',
  'receive.fsck.missingSpaceBeforeDate': 'ignore',
  'receive.fsck.zeroPaddedFilemode': 'ignore',
};

/**
 * Settings of every repository beyond what `git init` writes. Non-fast-forward pushes are
 * allowed here because protected branches are enforced by the pre-receive hook, not by git.
 */
const REPOSITORY_SETTINGS: ReadonlyArray<[string, string]> = [
  ['core.logAllRefUpdates', 'true'],
  ['receive.denyNonFastForwards', 'false'],
  ['receive.denyDeletes', 'false'],
  ['receive.advertisePushOptions', 'true'],
  ...Object.entries(RECEIVE_FSCK_CONFIG),
  ['http.receivepack', 'true'],
  ['http.uploadpack', 'true'],
  ['uploadpack.allowFilter', 'true'],
  ['uploadpack.allowAnySHA1InWant', 'true'],
  ['repack.writeBitmaps', 'true'],
  ['gc.auto', '0'],
];

/**
 * The whole config file of a repository: what `git init --bare` wrote on this file system
 * (`initConfig`: format version, file mode and case probes) followed by our settings, so a
 * repository's configuration is one file compared and written whole.
 */
export function canonicalConfig(initConfig: string): string {
  const sections = new Map<string, string[]>();
  for (const [key, value] of REPOSITORY_SETTINGS) {
    const first = key.indexOf('.');
    const last = key.lastIndexOf('.');
    const header = first === last ? `[${key.slice(0, first)}]` : `[${key.slice(0, first)} "${key.slice(first + 1, last)}"]`;
    const lines = sections.get(header) ?? [];
    lines.push(`\t${key.slice(last + 1)} = ${value}`);
    sections.set(header, lines);
  }
  const ours = [...sections].map(([header, lines]) => `${header}\n${lines.join('\n')}\n`).join('');
  return `${initConfig.endsWith('\n') || initConfig === '' ? initConfig : `${initConfig}\n`}${ours}`;
}

/** Replaces a repository's config file in one step: a reader sees the old file or the new one. */
export async function writeConfigFile(gitDir: string, text: string): Promise<void> {
  const target = path.join(gitDir, 'config');
  const temporary = `${target}.${randomUUID()}.tmp`;
  try {
    await writeFile(temporary, text);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
