/**
 * What the per-commit file lists (`added`/`modified`/`removed`) add to building a push's data
 * (webhooks and integrations), printed as one JSON line: the wall time of buildPushData for a
 * push of 20 commits of 5 files each, next to the baseline measured in the same run, the walk
 * of the same push's commits (newCommits), which is what the push data cost before the lists.
 * git's own CPU runs in child processes and is in the wall times only.
 * Run: node --import tsx bench/push-data.ts [pushes]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCoordinator } from '../src/coordinator/app.ts';
import { buildPushData, PUSH_DATA_COUNT_LIMIT } from '../src/coordinator/services/integrations/push-data.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { median } from './support/coordinator.ts';

const PUSHES = Number(process.argv[2] ?? 20);
const COMMITS_PER_PUSH = 20;
const FILES_PER_COMMIT = 5;
const ROOT_TOKEN = 'bench-root-token-0123456789';

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-push-data-'));
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: ROOT_TOKEN, logger: silentLogger() });
  try {
    const { context } = coordinator;
    const created = await coordinator.app.inject({ method: 'POST', url: '/api/v4/projects', headers: { 'private-token': ROOT_TOKEN }, payload: { name: 'bench-push-data', initialize_with_readme: true } });
    const projectId = Number((created.json() as { id: number }).id);
    const project = (await context.stores.projects.findById(projectId))!;
    const repository = context.repositories.open(projectId);
    const author = { name: 'Bench', email: 'bench@example.com' };
    const walks: number[] = [];
    const builds: number[] = [];
    for (let push = 0; push < PUSHES; push += 1) {
      const before = (await repository.resolveCommit('main'))!;
      for (let commit = 0; commit < COMMITS_PER_PUSH; commit += 1) {
        const actions = Array.from({ length: FILES_PER_COMMIT }, (_unused, file) => ({ action: 'create' as const, file_path: `p${push}/c${commit}/f${file}.txt`, content: Buffer.from(`${push} ${commit} ${file}\n`) }));
        await repository.commitFiles({ branch: 'main', message: `push ${push} commit ${commit}`, author, actions });
      }
      const after = (await repository.resolveCommit('main'))!;
      walks.push(await timed(() => repository.newCommits(after, [before], PUSH_DATA_COUNT_LIMIT)));
      builds.push(await timed(() => buildPushData(repository, { project, projectPath: 'root/bench-push-data', namespaceName: 'root', externalUrl: 'http://bench.test', ref: 'refs/heads/main', before, after, pusher: null })));
    }
    const walk = median(walks);
    const build = median(builds);
    console.log(JSON.stringify({
      bench: 'push-data', pushes: PUSHES, commits_per_push: COMMITS_PER_PUSH, files_per_commit: FILES_PER_COMMIT,
      baseline_commit_walk_ms_p50: Math.round(walk * 10) / 10, push_data_with_file_lists_ms_p50: Math.round(build * 10) / 10,
      file_lists_ms_p50: Math.round((build - walk) * 10) / 10, load_average_1m: Math.round(loadavg()[0]! * 100) / 100,
    }));
  } finally {
    await coordinator.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
