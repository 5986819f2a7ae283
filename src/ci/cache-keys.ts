/**
 * `cache:key:files`: the key is the sha of the last commit that changed those files
 * (with `prefix-` in front); `default` when none of them exists.
 */
import { createHash } from 'node:crypto';
import type { JobDefinition, RepositoryReader } from './model.ts';
import type { ExpandedJob } from './parallel.ts';

export async function resolveCacheKeys(jobs: JobDefinition[], configs: ExpandedJob[], reader: RepositoryReader): Promise<void> {
  const configByName = new Map(configs.map((job) => [job.config.name, job.config]));
  const memo = new Map<string, Promise<string | null>>();
  for (const job of jobs) {
    const config = configByName.get(job.name);
    if (!config) continue;
    for (let index = 0; index < config.cache.length; index++) {
      const key = config.cache[index]?.key;
      const target = job.cache[index];
      if (!key || typeof key === 'string' || !target) continue;
      const memoKey = JSON.stringify(key.files);
      let pending = memo.get(memoKey);
      if (!pending) {
        pending = keyForFiles(key.files, reader);
        memo.set(memoKey, pending);
      }
      const sha = await pending;
      const base = sha ?? 'default';
      target.key = key.prefix ? `${key.prefix}-${base}` : base;
    }
  }
}

async function keyForFiles(files: string[], reader: RepositoryReader): Promise<string | null> {
  const paths = files.map((file) => file.replace(/^\.?\//, ''));
  if (reader.lastCommitFor) return reader.lastCommitFor(paths);
  // Without history, a digest of the files' content is a stable stand-in.
  const hash = createHash('sha1');
  let found = false;
  for (const path of paths) {
    const content = await reader.readFile(path);
    if (content === null) continue;
    found = true;
    hash.update(path).update('\0').update(content).update('\0');
  }
  return found ? hash.digest('hex') : null;
}
