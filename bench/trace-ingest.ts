/**
 * Trace ingest (issue 13, bench d): 100 running jobs each stream their log as 64 KiB
 * `PATCH /api/v4/jobs/:id/trace` requests, all jobs at once (each job's patches in order, as a
 * runner sends them), against one listening coordinator. Printed as one JSON line: MB/s and
 * patch latency p50/p99, next to a bare baseline measured in the same run: the same bytes
 * appended to 100 files with fs, each append flushed (datasync) like the trace store does,
 * and without flushing.
 * Run: npx tsx bench/trace-ingest.ts [--jobs 100] [--patches 16] [--patch-kib 64] [--database postgres://...]
 */
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { createCoordinator } from '../src/coordinator/app.ts';
import { jobTokenDigest, newJobToken } from '../src/coordinator/services/ci/runners/job-tokens.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { percentile } from './support/coordinator.ts';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string', default: '100' },
    patches: { type: 'string', default: '16' },
    'patch-kib': { type: 'string', default: '64' },
    database: { type: 'string' },
  },
});
const jobCount = Number(values.jobs);
const patchesPerJob = Number(values.patches);
const patchBytes = Number(values['patch-kib']) * 1024;
const totalBytes = jobCount * patchesPerJob * patchBytes;
const mb = (bytes: number, ms: number): number => Math.round((bytes / 1024 / 1024 / (ms / 1000)) * 10) / 10;

const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-trace-'));
const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), databaseUrl: values.database, rootToken: 'bench-root-token-0123456789', logger: silentLogger() });
try {
  await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = coordinator.app.server.address() as { port: number };
  const { stores } = coordinator.context;
  const now = new Date().toISOString();

  // One project, one pipeline of `jobCount` builds, all taken by a runner of the project.
  const project = await stores.projects.create({
    namespace_id: 1, creator_id: 1, name: 'trace-bench', path: `trace-bench-${Date.now()}`, description: '', default_branch: 'main', visibility: 'private', archived: false,
    issues_enabled: true, merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true, snippets_enabled: true, container_registry_enabled: true,
    resolve_outdated_diff_discussions: false, shared_runners_enabled: true, public_jobs: true, request_access_enabled: false,
    only_allow_merge_if_pipeline_succeeds: false, only_allow_merge_if_all_discussions_are_resolved: false, printing_merge_requests_link_enabled: true,
    lfs_enabled: true, tag_list: [], forked_from_id: null, runners_token: `bench-${Date.now()}`, import_status: 'none', import_error: null, avatar_url: null,
    ci_config_path: null, pending_delete: false, pending_instance_id: null, created_at: now, updated_at: now, last_activity_at: now,
  });
  const pipeline = await stores.pipelines.create({ project_id: project.id, ref: 'main', sha: 'b'.repeat(40), tag: false, source: 'push', status: 'pending', user_id: 1, created_at: now });
  const [stage] = await stores.stages.insertMany(pipeline.id, [{ name: 'build', position: 0, status: 'pending' }]);
  await stores.jobs.insertMany(
    Array.from({ length: jobCount }, (_, index) => ({
      pipeline_id: pipeline.id, project_id: project.id, stage_id: stage!.id, stage: 'build', stage_idx: 0, name: `job ${index}`, type: 'build' as const,
      status: 'pending' as const, when: 'on_success' as const, allow_failure: false, ref: 'main', sha: 'b'.repeat(40), user_id: 1, created_at: now,
    })),
  );
  const runner = await stores.runners.create({ runner_type: 'project_type', created_at: now, run_untagged: true }, `bench-runner-${Date.now()}`, { projectIds: [project.id] });
  const claimed: Array<{ id: number; token: string }> = [];
  for (let index = 0; index < jobCount; index++) {
    const token = newJobToken();
    const job = (await stores.ciTransactions.run((ci) => ci.jobQueue.claim(runner, { now: new Date().toISOString(), tokenDigest: jobTokenDigest(token) })))?.job;
    if (!job) throw new Error('fewer jobs claimed than created');
    claimed.push({ id: job.id, token });
  }

  const patch = Buffer.alloc(patchBytes);
  for (let index = 0; index < patch.length; index++) patch[index] = 32 + (index % 95);
  const agent = new Agent({ connections: jobCount, pipelining: 1 });
  const latencies: number[] = [];
  let refused = 0;
  const started = performance.now();
  await Promise.all(
    claimed.map(async ({ id, token }) => {
      for (let sent = 0; sent < patchesPerJob; sent++) {
        const start = sent * patchBytes;
        const at = performance.now();
        const response = await request(`http://127.0.0.1:${port}/api/v4/jobs/${id}/trace`, {
          method: 'PATCH', dispatcher: agent, body: patch,
          headers: { 'content-type': 'text/plain', 'job-token': token, 'content-range': `${start}-${start + patchBytes - 1}` },
        });
        await response.body.dump();
        latencies.push(performance.now() - at);
        if (response.statusCode !== 202) refused += 1;
      }
    }),
  );
  const ingestMs = performance.now() - started;
  await agent.close();

  const appendFiles = async (sync: boolean): Promise<number> => {
    const directory = await mkdtemp(path.join(work, `baseline-${sync ? 'sync' : 'nosync'}-`));
    const begin = performance.now();
    await Promise.all(
      claimed.map(async ({ id }) => {
        for (let sent = 0; sent < patchesPerJob; sent++) {
          const file = await open(path.join(directory, `${id}.log`), 'a');
          await file.write(patch);
          if (sync) await file.datasync();
          await file.close();
        }
      }),
    );
    return performance.now() - begin;
  };
  const syncMs = await appendFiles(true);
  const noSyncMs = await appendFiles(false);
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      bench: 'trace-ingest',
      database: values.database ? 'postgres' : 'sqlite',
      traces: values.database ? 'database chunks' : 'files',
      jobs: jobCount,
      patch_kib: patchBytes / 1024,
      patches_per_job: patchesPerJob,
      total_mib: totalBytes / 1024 / 1024,
      refused,
      ingest_ms: Math.round(ingestMs),
      ingest_mb_s: mb(totalBytes, ingestMs),
      patch_p50_ms: percentile(latencies, 0.5),
      patch_p99_ms: percentile(latencies, 0.99),
      baseline_fs_append_datasync_mb_s: mb(totalBytes, syncMs),
      baseline_fs_append_mb_s: mb(totalBytes, noSyncMs),
      ratio_to_datasync_baseline: Math.round((syncMs / ingestMs) * 100) / 100,
    }),
  );
} finally {
  await coordinator.close();
  await rm(work, { recursive: true, force: true });
}
