/**
 * Start-up reconciliation over 2,000 projects with repositories, printed as one JSON line:
 * once with 200 of them damaged as crashes leave them (half-written config, HEAD naming a
 * missing branch, default_branch lost in the database), once clean, next to a baseline
 * measured in the same run: one `git for-each-ref refs/heads` per repository (what a check
 * through the git CLI costs at the least), four at a time.
 * Run: node --import tsx bench/reconcile.ts [projects]
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { execa } from '#deps/execa';
import { createCoordinator } from '../src/coordinator/app.ts';
import { createLogger } from '../src/shared/logger.ts';

const PROJECTS = Number(process.argv[2] ?? 2_000);
const ROOT_TOKEN = 'bench-root-token-0123456789';

/** Starts and stops a coordinator; returns its start time and the reconciliation's log summary. */
async function startOnce(dataDir: string): Promise<{ startMs: number; reconcileMs: number; repairs: number }> {
  let summary: Record<string, unknown> = {};
  const logger = createLogger({
    level: 'info',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) {
          const entry = JSON.parse(line) as Record<string, unknown>;
          if (entry.msg === 'repositories reconciled') summary = entry;
        }
        done();
      },
    }),
  });
  const started = performance.now();
  const coordinator = await createCoordinator({ dataDir, rootToken: ROOT_TOKEN, logger });
  const startMs = Math.round(performance.now() - started);
  await coordinator.close();
  return { startMs, reconcileMs: Number(summary.duration_ms), repairs: Number(summary.repairs) };
}

async function seed(dataDir: string): Promise<number[]> {
  const coordinator = await createCoordinator({ dataDir, rootToken: ROOT_TOKEN, logger: createLogger({ level: 'silent' }) });
  const { app, context } = coordinator;
  const headers = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
  const created = await app.inject({ method: 'POST', url: '/api/v4/projects', headers, payload: { name: 'template', initialize_with_readme: true } });
  const template = JSON.parse(created.body) as { id: number };
  const record = (await context.stores.projects.findById(template.id))!;
  const { id: _id, ...row } = record;
  const ids = [template.id];
  const source = context.repositories.open(template.id).path;
  for (let index = 1; index < PROJECTS; index += 1) {
    const project = await context.stores.projects.create({ ...row, name: `project ${index}`, path: `project-${index}`, runners_token: `${row.runners_token}-${index}` });
    await cp(source, context.repositories.open(project.id).path, { recursive: true });
    ids.push(project.id);
  }
  // Damage one in ten, the ways crashes did.
  for (const [index, id] of ids.entries()) {
    const gitDir = context.repositories.open(id).path;
    if (index % 30 === 1) await writeFile(path.join(gitDir, 'config'), '[core]\n\trepositoryformatversion = 0\n\tbare = true\n[receive]\n\tfsckObjects = false\n');
    if (index % 30 === 2) await writeFile(path.join(gitDir, 'HEAD'), 'ref: refs/heads/unborn\n');
    if (index % 30 === 3) await context.stores.projects.update(id, { default_branch: null });
  }
  await coordinator.close();
  return ids;
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'gantry-bench-reconcile-'));
  try {
    const ids = await seed(dataDir);
    const damaged = await startOnce(dataDir);
    const clean = await startOnce(dataDir);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < ids.length) {
          const gitDir = path.join(dataDir, 'repositories', `${ids[next++]}.git`);
          await execa('git', [`--git-dir=${gitDir}`, 'for-each-ref', 'refs/heads/'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1' } });
        }
      }),
    );
    const baselineMs = Math.round(performance.now() - started);
    console.log(
      JSON.stringify({
        projects: ids.length,
        reconcile_with_repairs_ms: damaged.reconcileMs,
        repairs: damaged.repairs,
        reconcile_clean_ms: clean.reconcileMs,
        coordinator_start_clean_ms: clean.startMs,
        baseline_git_for_each_ref_per_repository_ms: baselineMs,
      }),
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
