/**
 * Merge request pipelines, printed as one JSON line: a push to a source branch with an open
 * merge request → that request's merge request pipeline with its first job `pending` (p50,
 * p99; target: p50 under 200 ms after the push returns), next to plain pushes to a branch
 * without a request → the branch pipeline's first job pending, in the same run; and the
 * coordinator process's CPU time per push (user + system) for both.
 * Everything after the push is the coordinator's own path: the push record, the merge
 * request refresher (the request's ref, the diff refs), the pipeline task and its creation.
 * Run: npx tsx bench/merge-request-pipeline.ts [--pushes 30]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { createCoordinator, type Coordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { GIT_ENV } from './support/coordinator.ts';

const TOKEN = 'bench-root-token-0123456789';
const TARGET_MS = 200;
const CI = `stages: [a, b]
branch:
  stage: a
  script: [make]
  rules: [{ if: $CI_COMMIT_BRANCH }]
review:
  stage: a
  script: [make review]
  rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]
later:
  stage: b
  script: [make test]
`;

const { values } = parseArgs({ options: { pushes: { type: 'string', default: '30' } } });
const pushes = Number(values.pushes);
const run = promisify(execFile);

const percentile = (list: number[], p: number): number => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
};
const round = (value: number): number => Math.round(value * 10) / 10;

async function api(coordinator: Coordinator, method: 'POST' | 'GET', url: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await coordinator.app.inject({ method, url: `/api/v4${url}`, headers: { 'private-token': TOKEN, 'content-type': 'application/json' }, payload: body === undefined ? undefined : JSON.stringify(body) });
  return JSON.parse(response.body) as Record<string, unknown>;
}

const work = mkdtempSync(path.join(tmpdir(), 'gantry-bench-mr-pipeline-'));
const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: TOKEN, logger: silentLogger(), ci: { taskPollIntervalMs: 1000 } });
try {
  await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = coordinator.app.server.address() as AddressInfo;
  const { stores } = coordinator.context;
  const created = await api(coordinator, 'POST', '/projects', { name: 'app', initialize_with_readme: true });
  const projectId = created.id as number;
  await api(coordinator, 'POST', `/projects/${projectId}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: CI }] });
  const cwd = path.join(work, 'clone');
  const git = async (...args: string[]): Promise<string> => (await run('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' })).stdout.trim();
  await run('git', ['clone', '-q', `http://root:${TOKEN}@127.0.0.1:${port}/${String(created.path_with_namespace)}.git`, cwd], { env: GIT_ENV });
  await git('checkout', '-q', '-b', 'feature');
  await git('push', '-q', 'origin', 'feature', 'HEAD:plain');
  const request = await stores.mergeRequests.create(
    { project_id: projectId, source_project_id: projectId, source_branch: 'feature', target_branch: 'main', author_id: 1, title: 'Bench', description: null, state: 'opened', created_at: new Date().toISOString() },
    {},
  );

  async function firstPending(find: () => Promise<number | undefined>, since: number, what: string): Promise<number> {
    for (;;) {
      const pipelineId = await find();
      const first = pipelineId === undefined ? undefined : (await stores.jobs.list({ pipelineId, statuses: ['pending'] }, { offset: 0, limit: 1 })).items[0];
      if (first) return performance.now() - since;
      if (performance.now() - since > 30_000) throw new Error(`no pending job: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }

  async function push(branch: string, index: number): Promise<{ sha: string; pushed: number; cpu: NodeJS.CpuUsage }> {
    writeFileSync(path.join(cwd, `${branch}-${index}.txt`), `${index}\n`);
    await git('add', '.');
    await git('commit', '-q', '-m', `${branch} ${index}`);
    const sha = await git('rev-parse', 'HEAD');
    const cpu = process.cpuUsage();
    await git('push', '-q', 'origin', `HEAD:${branch}`);
    return { sha, pushed: performance.now(), cpu };
  }
  const cpuMs = (since: NodeJS.CpuUsage): number => { const used = process.cpuUsage(since); return (used.user + used.system) / 1000; };

  const plainMs: number[] = [];
  const plainCpu: number[] = [];
  const requestMs: number[] = [];
  const requestCpu: number[] = [];
  for (let index = 0; index < pushes; index++) {
    const plain = await push('plain', index);
    plainMs.push(await firstPending(async () => (await stores.pipelines.latestFor(projectId, plain.sha, 'plain'))?.id, plain.pushed, `plain ${index}`));
    plainCpu.push(cpuMs(plain.cpu));

    // The push alone: the refresher writes the request's ref and diff refs and asks for its pipeline.
    const moved = await push('feature', index);
    requestMs.push(await firstPending(async () => (await stores.pipelines.latestFor(projectId, moved.sha, `refs/merge-requests/${request.iid}/head`))?.id, moved.pushed, `request ${index}`));
    requestCpu.push(cpuMs(moved.cpu));
  }
  const p50 = percentile(requestMs, 50);
  console.log(JSON.stringify({
    bench: 'merge-request-pipeline', pushes,
    request_pipeline_pending_after_push_ms_p50: round(p50), request_pipeline_pending_after_push_ms_p99: round(percentile(requestMs, 99)),
    request_push_cpu_ms_p50: round(percentile(requestCpu, 50)),
    branch_pipeline_pending_after_push_ms_p50: round(percentile(plainMs, 50)), branch_pipeline_pending_after_push_ms_p99: round(percentile(plainMs, 99)),
    branch_push_cpu_ms_p50: round(percentile(plainCpu, 50)),
    target_ms: TARGET_MS, target_met: p50 < TARGET_MS, loadavg_1m: round(loadavg()[0] ?? NaN),
  }));
} finally {
  await coordinator.close();
  rmSync(work, { recursive: true, force: true });
}
