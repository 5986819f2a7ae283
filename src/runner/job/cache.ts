/**
 * restore_cache and archive_cache (reference §8.3) against the local cache directory:
 * `<cache_dir>/<project path>/<key>/cache.zip` on the runner's machine. The `Type` and
 * `Shared` keys of `[runners.cache]` are the seam for object storage later.
 */
import { mkdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ArtifactWhen, Cache } from '../../protocol/job-payload.ts';
import { archive as loadArchiveCode } from './archive/lazy.ts';
import type { JobContext } from './context.ts';
import { zipCompressionLevel } from './compression.ts';
import { JobFailure } from './failure.ts';
import { expandValue, variableValue } from './variables.ts';

export function cacheEntries(context: JobContext): Cache[] {
  return context.payload.cache.filter((entry) => entry.paths.length > 0 || entry.untracked);
}

/**
 * The key expanded with all the job's variables, the runner's own too (default `<job name>/<ref>`):
 * `''` when it expands to nothing, null when it would leave the cache directory. A leading `/`
 * stays inside it, as gitlab-runner joins the key under its cache directory (`${CI_PROJECT_DIR}` is a key).
 */
export function cacheKey(context: JobContext, entry: Cache): string | null {
  const key = expandValue(entry.key || `${context.payload.job_info.name}/${context.payload.git_info.ref}`, context.variables);
  if (key.split(/[\\/]/).some((part) => part === '..')) return null;
  return key;
}

/**
 * A key that is no key: gitlab-runner skips a cache whose key expands to nothing with a notice
 * (`Skipping cache extraction due to empty cache key`), and we refuse one leaving the cache directory.
 */
function unusableKey(context: JobContext, entry: Cache, key: string | null, step: 'extraction' | 'archiving'): key is null | '' {
  if (key === '') context.trace.notice(`Skipping cache ${step} due to empty cache key`);
  else if (key === null) context.trace.warning(`cache key "${entry.key}" is not valid: it must stay inside the cache directory`);
  return key === null || key === '';
}

/**
 * The entry's policy with the job's variables expanded, as gitlab-runner reads it (GitLab sends
 * `policy: $POLICY` as written): empty is `pull-push`; any other value fails the job.
 */
function cachePolicy(context: JobContext, entry: Cache, key: string): 'pull' | 'push' | 'pull-push' {
  const policy = expandValue(entry.policy, context.variables);
  if (policy === '' || policy === 'pull-push') return 'pull-push';
  if (policy === 'pull' || policy === 'push') return policy;
  throw new JobFailure(`unknown cache policy ${policy} for ${key}`, 'runner_system_failure');
}

function cacheFile(context: JobContext, key: string): string {
  return path.join(context.settings.cacheDir, ...context.projectPath.split('/'), ...key.split('/'), 'cache.zip');
}

export async function restoreCache(context: JobContext): Promise<void> {
  const archiveCode = await loadArchiveCode();
  const { trace } = context;
  for (const entry of cacheEntries(context)) {
    const key = cacheKey(context, entry);
    if (unusableKey(context, entry, key, 'extraction')) continue;
    if (cachePolicy(context, entry, key) === 'push') {
      trace.notice(`Not downloading cache ${key} due to policy`);
      continue;
    }
    // gitlab-runner's order: the key, the cache's fallback_keys, then CACHE_FALLBACK_KEY.
    const keys = [key];
    for (const fallback of [...(entry.fallback_keys ?? []), variableValue(context.variables, 'CACHE_FALLBACK_KEY') ?? '']) {
      const valid = fallback === '' ? null : cacheKey(context, { ...entry, key: fallback });
      if (valid && !keys.includes(valid)) keys.push(valid);
    }
    let restored = false;
    for (const candidate of keys) {
      trace.notice(`Checking cache for ${candidate}...`);
      const file = cacheFile(context, candidate);
      if (!(await stat(file).catch(() => null))) {
        trace.warning('file does not exist');
        trace.warning('Failed to extract cache');
        continue;
      }
      try {
        await context.environment.copyIn(await archiveCode.zipAsTar(file), context.environment.info.projectDir);
        trace.notice('Successfully extracted cache');
        restored = true;
        break;
      } catch (error) {
        trace.warning(`Failed to extract cache: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (!restored && keys.length > 1) trace.warning('Cache could not be restored with any key');
  }
}

function applies(when: ArtifactWhen | undefined, succeeded: boolean): boolean {
  const value = when ?? 'on_success';
  return value === 'always' || (value === 'on_success' ? succeeded : !succeeded);
}

export function cachesToArchive(context: JobContext, succeeded: boolean): Cache[] {
  return cacheEntries(context).filter((entry) => applies(entry.when, succeeded));
}

/**
 * A cache that cannot be written is a warning, as gitlab-runner's script says
 * `Failed to create cache` and goes on: never the job's failure.
 */
export async function archiveCache(context: JobContext, succeeded: boolean): Promise<void> {
  const archiveCode = await loadArchiveCode();
  const { trace } = context;
  for (const entry of cachesToArchive(context, succeeded)) {
    const key = cacheKey(context, entry);
    if (unusableKey(context, entry, key, 'archiving')) continue;
    if (cachePolicy(context, entry, key) === 'pull') {
      trace.notice(`Not uploading cache ${key} due to policy`);
      continue;
    }
    trace.notice(`Creating cache ${key}...`);
    try {
      const { entries, select, unarchivable } = await archiveCode.collect(context, { paths: entry.paths, untracked: entry.untracked }, 'cache');
      for (const { warning, text } of archiveCode.matchReport(select, context.environment.info.projectDir)) {
        if (warning) trace.warning(text);
        else trace.write(`${text}\n`);
      }
      for (const name of unarchivable) trace.warning(archiveCode.unarchivableLine(name));
      const file = cacheFile(context, key);
      await mkdir(path.dirname(file), { recursive: true });
      const partial = `${file}.${process.pid}.${Date.now()}.tmp`;
      await archiveCode.writeZip(entries, partial, zipCompressionLevel(context, 'CACHE_COMPRESSION_LEVEL'));
      await rename(partial, file);
      trace.notice('Created cache');
    } catch (error) {
      trace.warning(error instanceof Error ? error.message : String(error));
      trace.warning('Failed to create cache');
    }
  }
}
