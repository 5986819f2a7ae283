/**
 * What recording a push's activity event costs, printed as one JSON line: the wall and process
 * CPU time of ActivityRecorder.pushed (the git read of the new commits, one insert, the pusher's
 * activity day) for a branch update, next to the baseline of a push itself measured in the same
 * run: `POST /projects/:id/repository/commits` (one commit written and published as a push),
 * whose answer the recording never delays (it is heard after the push is acknowledged). git's
 * own CPU runs in child processes and is in the wall times only.
 * Run: node --import tsx bench/events-push.ts [pushes]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCoordinator } from '../src/coordinator/app.ts';
import { UserActivity } from '../src/coordinator/services/accounts/user-activity.ts';
import { ActivityRecorder } from '../src/coordinator/services/events/recorder.ts';
import { silentLogger } from '../src/shared/logger.ts';
import { median } from './support/coordinator.ts';

const PUSHES = Number(process.argv[2] ?? 40);
const ROOT_TOKEN = 'bench-root-token-0123456789';

async function measure(work: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-events-'));
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: ROOT_TOKEN, logger: silentLogger() });
  try {
    const { context } = coordinator;
    const api = async (method: string, url: string, body: unknown) => {
      const response = await coordinator.app.inject({ method, url: `/api/v4${url}`, headers: { 'private-token': ROOT_TOKEN }, payload: body as Record<string, unknown> });
      if (response.statusCode !== 201) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
      return response.json() as Record<string, unknown>;
    };
    const project = await api('POST', '/projects', { name: 'bench-events', initialize_with_readme: true });
    const recorder = new ActivityRecorder({
      events: context.stores.activityEvents, users: context.stores.users, repositories: context.repositories,
      activity: new UserActivity({ activity: context.stores.userActivity, permissions: context.permissions, logger: silentLogger() }), logger: silentLogger(),
    });
    const pushes: Array<{ wallMs: number; cpuMs: number }> = [];
    const recordings: Array<{ wallMs: number; cpuMs: number }> = [];
    const repository = context.repositories.open(Number(project.id));
    for (let index = 0; index < PUSHES; index += 1) {
      const before = (await repository.resolveCommit('main')) ?? '';
      pushes.push(await measure(() => api('POST', `/projects/${project.id}/repository/commits`, {
        branch: 'main', commit_message: `change ${index}`, actions: [{ action: 'create', file_path: `file-${index}.txt`, content: `${index}\n` }],
      })));
      const after = (await repository.resolveCommit('main')) ?? '';
      recordings.push(await measure(() => recorder.pushed({ project_id: Number(project.id), ref: 'refs/heads/main', before, after, user_id: 1 })));
    }
    const summary = (list: Array<{ wallMs: number; cpuMs: number }>) => ({
      wall_ms_p50: median(list.map((entry) => entry.wallMs)),
      cpu_ms_p50: median(list.map((entry) => entry.cpuMs)),
    });
    const push = summary(pushes);
    const recording = summary(recordings);
    console.log(JSON.stringify({
      bench: 'events-push', pushes: PUSHES, baseline_api_push: push, push_event_recording: recording,
      recording_to_push_wall: Math.round((recording.wall_ms_p50 / push.wall_ms_p50) * 100) / 100,
      load_average_1m: Math.round(loadavg()[0]! * 100) / 100,
    }));
  } finally {
    await coordinator.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
