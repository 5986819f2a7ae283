/** ARTIFACT_COMPRESSION_LEVEL and CACHE_COMPRESSION_LEVEL, read with FF_USE_FASTZIP as gitlab-runner's fastzip archiver reads them. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import yauzl from 'yauzl';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import type { JobPayload, JobVariable } from '../../src/protocol/job-payload.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { jobSettings, payload, RecordingSession, runnerIdentity, variable } from './support.ts';

/** Each file entry's compression method (0 stored, 8 deflated). */
async function methods(file: string): Promise<Record<string, number>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: false }, (error, opened) => (error ? reject(error) : resolve(opened))));
  const out: Record<string, number> = {};
  zip.on('entry', (entry: yauzl.Entry) => {
    if (!entry.fileName.endsWith('/')) out[entry.fileName] = entry.compressionMethod;
  });
  await new Promise((resolve, reject) => zip.on('end', resolve).on('error', reject));
  return out;
}

const steps: JobPayload['steps'] = [{ name: 'script', script: ['mkdir -p out', 'seq 1 2000 > out/numbers.txt'], timeout: 3600, when: 'on_success', allow_failure: false }];

async function archives(extra: JobVariable[]): Promise<{ artifact: Record<string, number>; cache: Record<string, number> }> {
  const settings = await jobSettings();
  const session = new RecordingSession();
  const job = payload({
    variables: [variable('GIT_STRATEGY', 'none'), ...extra],
    steps,
    artifacts: [{ name: 'out', untracked: false, paths: ['out/'], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' }],
    cache: [{ key: 'numbers', untracked: false, paths: ['out/'], policy: 'pull-push', when: 'on_success' }],
  });
  const outcome = await runJob({ payload: job, executor: new ShellExecutor({ buildsDir: settings.buildsDir }), session, runner: runnerIdentity, settings });
  assert.deepEqual(outcome, { state: 'success' }, session.trace);
  return { artifact: await methods(session.uploads[0].copy), cache: await methods(path.join(settings.cacheDir, 'project-7', 'numbers', 'cache.zip')) };
}

describe('archive compression levels', () => {
  it('stores the files uncompressed with FF_USE_FASTZIP and the level `fastest`, each archive by its own variable', async () => {
    const fastest = await archives([variable('FF_USE_FASTZIP', 'true'), variable('ARTIFACT_COMPRESSION_LEVEL', 'fastest'), variable('CACHE_COMPRESSION_LEVEL', 'fastest')]);
    assert.deepEqual(fastest, { artifact: { 'out/numbers.txt': 0 }, cache: { 'out/numbers.txt': 0 } });
    const artifactOnly = await archives([variable('FF_USE_FASTZIP', '1'), variable('ARTIFACT_COMPRESSION_LEVEL', 'fastest'), variable('CACHE_COMPRESSION_LEVEL', 'slowest')]);
    assert.deepEqual(artifactOnly, { artifact: { 'out/numbers.txt': 0 }, cache: { 'out/numbers.txt': 8 } });
  });

  it('deflates as before without FF_USE_FASTZIP, whatever the level says (gitlab-runner\'s default archiver has no levels)', async () => {
    const ignored = await archives([variable('ARTIFACT_COMPRESSION_LEVEL', 'fastest'), variable('CACHE_COMPRESSION_LEVEL', 'fastest')]);
    assert.deepEqual(ignored, { artifact: { 'out/numbers.txt': 8 }, cache: { 'out/numbers.txt': 8 } });
  });
});
