/**
 * CPU per fetch of the last member of an artifacts archive of 25,000, 50,000 and 200,000
 * members. After: through the jobs API of an in-process coordinator (`GET
 * /projects/:id/jobs/:job_id/artifacts/<path>`, anonymous, public project), the member found in
 * the index recorded at upload and read at its offset. Before: the look-up as it was
 * (bench/support/zip-walk-before.ts) on the same stored archive, in the same run; it stops
 * past BENCH_BEFORE_BUDGET_S seconds of CPU (default 600) and says so. Also measured: the CPU
 * of each upload (streamed to disk, central directory read once, member records written).
 *
 * Target: a fetch costs the same at every size (the 200,000 figure within 2x of the 25,000
 * one), and under 1 % of the walk at 25,000 members.
 * Run: node --import tsx bench/artifact-members.ts [member counts, default 25000,50000,200000]
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { seedPipeline } from '../test/helpers/ci-pipelines.ts';
import { BOUNDARY, runningJobToken } from '../test/helpers/runner-artifacts.ts';
import { memberContent, memberName, writeManyMemberZip } from './support/many-member-zip.ts';
import { openZipMember as openZipMemberBefore } from './support/zip-walk-before.ts';

const ROOT_TOKEN = 'bench-root-token-0123456789';
const FETCHES = 20;
const counts = (process.argv[2] ?? '25000,50000,200000').split(',').map(Number);
const beforeBudgetMs = Number(process.env.BENCH_BEFORE_BUDGET_S ?? 600) * 1000;

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-members-'));
const dataDir = path.join(work, 'data');
const coordinator = await createCoordinator({ dataDir, rootToken: ROOT_TOKEN, logger: silentLogger() });
const figures: Record<string, unknown> = {};
try {
  const created = await coordinator.app.inject({
    method: 'POST',
    url: '/api/v4/projects',
    headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'bench-members', initialize_with_readme: true, visibility: 'public' }),
  });
  if (created.statusCode !== 201) throw new Error(`POST /projects answered ${created.statusCode}: ${created.body}`);
  const project = JSON.parse(created.body) as { id: number };
  const head = JSON.parse((await coordinator.app.inject({ url: `/api/v4/projects/${project.id}/repository/commits/main`, headers: { 'private-token': ROOT_TOKEN } })).body) as { id: string };

  for (const count of counts) {
    const zipFile = path.join(work, `${count}.zip`);
    await writeManyMemberZip(zipFile, count);
    const zip = await readFile(zipFile);
    const name = `package-${count}`;
    const { jobs } = await seedPipeline(coordinator, { projectId: project.id, sha: head.id, ref: 'main', jobs: [{ name, stage: 'build' }] });
    const job = jobs[name]!;
    const token = await runningJobToken(coordinator, job);
    const body = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="artifacts.zip"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      zip,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    let cpu = cpuMs();
    const uploaded = await coordinator.app.inject({
      method: 'POST',
      url: `/api/v4/jobs/${job.id}/artifacts`,
      headers: { 'job-token': token, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      payload: body,
    });
    const uploadCpuMs = cpuMs() - cpu;
    if (uploaded.statusCode !== 201) throw new Error(`upload of ${count} members answered ${uploaded.statusCode}: ${uploaded.body}`);

    const last = memberName(count - 1);
    const url = `/api/v4/projects/${project.id}/jobs/${job.id}/artifacts/${last}`;
    const fetchOnce = async () => {
      const answer = await coordinator.app.inject({ url });
      if (answer.statusCode !== 200 || answer.body !== memberContent(count - 1)) throw new Error(`GET ${url} answered ${answer.statusCode}: ${answer.body}`);
    };
    for (let warm = 0; warm < 3; warm += 1) await fetchOnce();
    cpu = cpuMs();
    let wall = performance.now();
    for (let fetch = 0; fetch < FETCHES; fetch += 1) await fetchOnce();
    const afterCpuMs = (cpuMs() - cpu) / FETCHES;
    const afterWallMs = (performance.now() - wall) / FETCHES;

    const stored = await coordinator.context.stores.jobArtifacts.find(job.id, 'archive');
    if (!stored) throw new Error('no archive recorded');
    cpu = cpuMs();
    wall = performance.now();
    const before = await openZipMemberBefore(path.join(dataDir, stored.path), last, beforeBudgetMs);
    if (before === undefined) throw new Error(`the walk did not find ${last}`);
    if (before !== 'over budget') for await (const chunk of before.stream) void chunk;
    const beforeCpuMs = cpuMs() - cpu;
    const beforeWallMs = performance.now() - wall;

    figures[String(count)] = {
      archive_bytes: zip.length,
      upload_cpu_ms: round(uploadCpuMs, 0),
      after_cpu_ms_per_fetch: round(afterCpuMs),
      after_wall_ms_per_fetch: round(afterWallMs),
      before_cpu_ms_per_fetch: round(beforeCpuMs, 0),
      before_wall_ms_per_fetch: round(beforeWallMs, 0),
      before_complete: before !== 'over budget',
      before_over_after: round(beforeCpuMs / afterCpuMs, 0),
    };
    await rm(zipFile);
  }
} finally {
  await coordinator.close();
  await rm(work, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ bench: 'artifact-members', fetches_per_size: FETCHES, before_budget_cpu_s: beforeBudgetMs / 1000, members: figures })}\n`);
