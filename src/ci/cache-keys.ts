/**
 * `cache:key:files` (and `files_commits`, GitLab 18's name for it): the key is a SHA-1 of the
 * last commits that changed each listed file, sorted, deduplicated and joined by `-`, with
 * `prefix-` in front; `default` when none of the files exists. (GitLab 18 keys `files` by the
 * files' content instead.)
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
        pending = digestFor(key.files, reader);
        memo.set(memoKey, pending);
      }
      const digest = (await pending) ?? 'default';
      target.key = key.prefix ? `${key.prefix}-${digest}` : digest;
    }
  }
}

async function digestFor(files: string[], reader: RepositoryReader): Promise<string | null> {
  const paths = [...new Set(files.map((file) => file.replace(/^\.?\//, '')))];
  const lastCommitFor = reader.lastCommitFor?.bind(reader);
  // Without history, the files' git blob ids stand in: stable for the same content.
  const ids = await Promise.all(paths.map((path) => (lastCommitFor ? lastCommitFor([path]) : blobId(path, reader))));
  const present = [...new Set(ids.filter((id): id is string => id !== null))].sort();
  return present.length === 0 ? null : createHash('sha1').update(present.join('-')).digest('hex');
}

async function blobId(path: string, reader: RepositoryReader): Promise<string | null> {
  const content = await reader.readFile(path);
  if (content === null) return null;
  const bytes = Buffer.from(content, 'utf8');
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
