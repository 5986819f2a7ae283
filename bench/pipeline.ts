/**
 * Pipeline creation, printed as one JSON line:
 *  1. create: `POST /projects/:id/pipeline` for a CI file of 1,000 jobs (10 stages, every job
 *     `extends` a template and `needs` a job of the stage before) on SQLite: compile, insert
 *     and process in one transaction (target: under 1 s), next to compiling the same file
 *     alone in the same run (the floor).
 *  2. push: `git push` of a one-file commit over HTTP, then the time until the push's pipeline
 *     exists with its first job pending, p50 (target: under 100 ms after the push returns),
 *     next to the push itself.
 * Run: npx tsx bench/pipeline.ts [--jobs 1000] [--runs 5] [--pushes 15]
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { compilePipeline } from '../src/ci/index.ts';
import { createCoordinator, type Coordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { GIT_ENV } from './support/coordinator.ts';

const TOKEN = 'bench-root-token-0123456789';
const CREATE_TARGET_MS = 1000;
const PUSH_TARGET_MS = 100;

const { values } = parseArgs({ options: { jobs: { type: 'string', default: '1000' }, runs: { type: 'string', default: '5' }, pushes: { type: 'string', default: '15' } } });
const jobCount = Number(values.jobs);
const runs = Number(values.runs);
const pushes = Number(values.pushes);

function ciFile(jobs: number): string {
  const stages = 10;
  const perStage = Math.ceil(jobs / stages);
  const lines = [`stages: [${Array.from({ length: stages }, (_, index) => `s${index}`).join(', ')}]`, '.base:', '  image: alpine', '  script: [echo hi]', '  retry: 1'];
  for (let index = 0; index < jobs; index++) {
    const stage = Math.floor(index / perStage);
    lines.push(`job_${index}:`, '  extends: .base', `  stage: s${stage}`);
    if (stage > 0) lines.push(`  needs: [job_${index - perStage}]`);
  }
  return `${lines.join('\n')}\n`;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
const round = (value: number): number => Math.round(value * 10) / 10;

async function api(coordinator: Coordinator, method: 'POST' | 'GET', url: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await coordinator.app.inject({ method, url: `/api/v4${url}`, headers: { 'private-token': TOKEN, 'content-type': 'application/json' }, payload: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.statusCode, json: JSON.parse(response.body) as Record<string, unknown> };
}

async function measureCreate(work: string): Promise<Record<string, number>> {
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'create'), rootToken: TOKEN, logger: silentLogger(), ci: { runTasks: false } });
  try {
    const text = ciFile(jobCount);
    const project = await api(coordinator, 'POST', '/projects', { name: 'big', initialize_with_readme: true });
    const id = project.json.id as number;
    await api(coordinator, 'POST', `/projects/${id}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: text }] });
    const compileMs: number[] = [];
    const createMs: number[] = [];
    for (let run = 0; run < runs; run++) {
      let started = performance.now();
      const compiled = await compilePipeline(text, { project: { id, path: 'root/big' }, ref: 'main', refType: 'branch', sha: 'a'.repeat(40), source: 'api', files: { readFile: async () => null } });
      compileMs.push(performance.now() - started);
      if (compiled.jobs.length !== jobCount) throw new Error(`compiled ${compiled.jobs.length} jobs`);
      started = performance.now();
      const created = await api(coordinator, 'POST', `/projects/${id}/pipeline`, { ref: 'main' });
      createMs.push(performance.now() - started);
      if (created.status !== 201 || created.json.status !== 'pending') throw new Error(`create answered ${created.status}: ${JSON.stringify(created.json).slice(0, 300)}`);
    }
    return { compile_only_ms_p50: round(median(compileMs)), create_ms_p50: round(median(createMs)), create_ms_max: round(Math.max(...createMs)) };
  } finally {
    await coordinator.close();
  }
}

async function measurePush(work: string): Promise<Record<string, number>> {
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'push'), rootToken: TOKEN, logger: silentLogger() });
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = coordinator.app.server.address() as AddressInfo;
    const project = await api(coordinator, 'POST', '/projects', { name: 'pushed', initialize_with_readme: true });
    const id = project.json.id as number;
    await api(coordinator, 'POST', `/projects/${id}/repository/commits`, {
      branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'stages: [a, b]\nfirst:\n  stage: a\n  script: [make]\nsecond:\n  stage: b\n  script: [make test]\n' }],
    });
    const cwd = path.join(work, 'clone');
    // Asynchronous git: the coordinator answering it runs in this process.
    const run = promisify(execFile);
    const git = async (...args: string[]): Promise<string> => (await run('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' })).stdout.trim();
    await run('git', ['clone', '-q', `http://root:${TOKEN}@127.0.0.1:${port}/${String(project.json.path_with_namespace)}.git`, cwd], { env: GIT_ENV });
    const { pipelines, jobs } = coordinator.context.stores;
    const pushMs: number[] = [];
    const pendingMs: number[] = [];
    for (let index = 0; index < pushes; index++) {
      writeFileSync(path.join(cwd, `file-${index}.txt`), `${index}\n`);
      await git('add', '.');
      await git('commit', '-q', '-m', `change ${index}`);
      const sha = await git('rev-parse', 'HEAD');
      const started = performance.now();
      await git('push', '-q', 'origin', 'HEAD:main');
      const pushed = performance.now();
      pushMs.push(pushed - started);
      for (;;) {
        const pipeline = await pipelines.latestFor(id, sha, 'main');
        const first = pipeline ? (await jobs.list({ pipelineId: pipeline.id, statuses: ['pending'] }, { offset: 0, limit: 1 })).items[0] : undefined;
        if (first) break;
        if (performance.now() - pushed > 30_000) throw new Error(`no pending job for ${sha}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      pendingMs.push(performance.now() - pushed);
    }
    return { git_push_ms_p50: round(median(pushMs)), pipeline_pending_after_push_ms_p50: round(median(pendingMs)), pipeline_pending_after_push_ms_max: round(Math.max(...pendingMs)) };
  } finally {
    await coordinator.close();
  }
}

const work = mkdtempSync(path.join(tmpdir(), 'gantry-bench-pipeline-'));
try {
  const create = await measureCreate(work);
  const push = await measurePush(work);
  const targetsMet = (create.create_ms_p50 ?? Infinity) < CREATE_TARGET_MS && (push.pipeline_pending_after_push_ms_p50 ?? Infinity) < PUSH_TARGET_MS;
  console.log(JSON.stringify({ bench: 'pipeline', jobs: jobCount, runs, pushes, ...create, create_target_ms: CREATE_TARGET_MS, ...push, push_target_ms: PUSH_TARGET_MS, targets_met: targetsMet }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
