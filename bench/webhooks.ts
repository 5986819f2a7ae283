/**
 * Webhook deliveries, printed as one JSON line. Four projects on one coordinator: two without
 * hooks (the baseline, measured in the same run, twice: how far the two differ is the bench's
 * noise) and two with `--hooks` push hooks each to a receiver on loopback in a process of its own
 * (bench/support/hook-receiver.ts), one for the rounds whose deliveries are sent meanwhile and
 * one for those whose deliveries are held. Each project gets the same number of pushes, so their
 * trees (one more file a push) stay the same size: a commit to a bigger tree costs more. `--pushes` API commits (each a push event) go to each
 * project, one at a time — back to back, or with `--pace N` at random (Poisson) arrivals of N a
 * second, the same arrivals every run — in `--rounds` rounds that
 * alternate the projects (so that the machine's noise hits all alike); a hooked round ends
 * when its deliveries have all arrived. Measured: each push's own latency (its request's wall
 * time) in both projects; what the hooks cost a push's request itself (a third kind of round,
 * to the second hooked project while the hook worker is stopped: the deliveries are queued and sent
 * only after the round); the delivery latency from a push's answer to each receiver request
 * for it (p50/p99); deliveries per second (all deliveries over the hooked rounds' time); the
 * coordinator's CPU per push in each project (this process, where the coordinator runs beside
 * the client, all its threads, and with the git processes it starts; the hooked figure includes
 * its deliveries), and the receiver's CPU per delivery, apart. The coordinator's database is a
 * SQLite file, as `coordinator serve` uses: the deliveries are sent from their thread
 * (coordinator/hook-thread.ts), or with `--in-process` from the coordinator's own.
 * Run: npx tsx bench/webhooks.ts [--pushes 100] [--hooks 10] [--rounds 4] [--in-process] [--pace 0]
 */
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ciServicesOf } from '../src/coordinator/app.ts';
import { percentile, ROOT_TOKEN, startBenchCoordinator } from './support/coordinator.ts';
import type { ReceiverMessage, ReceiverRequest } from './support/hook-receiver.ts';
import { processTreeCpuMs, threadCpuMs, treeCpuMsOf } from './support/process-tree-cpu.ts';

const { values } = parseArgs({
  options: {
    pushes: { type: 'string', default: '100' }, hooks: { type: 'string', default: '10' }, rounds: { type: 'string', default: '4' }, 'in-process': { type: 'boolean', default: false },
    pace: { type: 'string', default: '0' },
  },
});
const pushes = Number(values.pushes);
const hookCount = Number(values.hooks);
const rounds = Number(values.rounds);
/** Pushes a second, their arrivals random (a Poisson process); 0: each push as soon as the one before was answered. */
const pace = Number(values.pace);
if (!(pace >= 0)) throw new Error(`--pace must be a number of pushes a second (0: back to back), got ${values.pace}`);
const TARGETS = { delivery_p50_ms_max: 100, delivery_p99_ms_max: 1_000 };

// Run from source (tsx) or compiled: the receiver is this file's sibling of the same kind.
const compiled = import.meta.url.endsWith('.js');
const receiverFile = fileURLToPath(new URL(`./support/hook-receiver.${compiled ? 'js' : 'ts'}`, import.meta.url));
const receiver = fork(receiverFile, [], { execArgv: compiled ? [] : ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const nextMessage = <T extends ReceiverMessage['type']>(type: T) =>
  new Promise<Extract<ReceiverMessage, { type: T }>>((resolve, reject) => {
    const listen = (message: ReceiverMessage) => {
      if (message.type !== type) return;
      receiver.off('message', listen);
      receiver.off('exit', exited);
      resolve(message as Extract<ReceiverMessage, { type: T }>);
    };
    const exited = () => reject(new Error(`the receiver exited before its ${type} message`));
    receiver.on('message', listen);
    receiver.once('exit', exited);
  });
const ask = (request: ReceiverRequest) => receiver.send(request);
// The receiver must not outlive a bench that fails on its way.
process.once('exit', () => receiver.kill());
const receiverPort = (await nextMessage('listening')).port;
const receiverPid = receiver.pid!;

const profiling = process.env.BENCH_PROFILE;
/** The kind of round profiled (BENCH_PROFILE_KIND; the rounds without hooks unless told). */
const profiledKind = process.env.BENCH_PROFILE_KIND ?? 'plain';
const profiler = new Session();
if (profiling) {
  profiler.connect();
  await profiler.post('Profiler.enable');
}

const now = () => performance.timeOrigin + performance.now();
const changePct = (base: number, value: number) => Math.round(((value - base) / base) * 1000) / 10;
/** Mulberry32, seeded: every run draws the same paced arrivals. */
let seed = 0x9e3779b9;
const random = (): number => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};
/** When each hooked push (by its new SHA) was answered, epoch milliseconds. */
const answeredAt = new Map<string, number>();

// A SQLite file, as `coordinator serve` uses: the deliveries are sent from a thread of their own unless --in-process.
const gantry = await startBenchCoordinator(values['in-process'] ? { ci: { hooks: { inProcess: true } } } : {});
const api = async (method: string, url: string, body?: unknown) => {
  const response = await fetch(`${gantry.base}/api/v4${url}`, { method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
};

/**
 * CPU of this process (µs resolution; all its threads) and of it with its git processes, the
 * receiver left out (10 ms ticks); and the time the main thread's event loop was busy (what the
 * next request waits behind; the deliveries' thread has a loop of its own), and the time the main
 * thread waited, ready, for a core (what other threads and processes on the machine cost it).
 */
const cpuNow = () => {
  const own = process.cpuUsage();
  const threads = threadCpuMs();
  const main = threads.get(process.pid);
  return { own: (own.user + own.system) / 1000, tree: processTreeCpuMs() - treeCpuMsOf(receiverPid), loop: performance.eventLoopUtilization().active, main: main?.ms ?? 0, waited: main?.waitedMs ?? 0, threads };
};

try {
  await api('PUT', '/application/settings', { allow_local_requests_from_web_hooks_and_services: true });
  const plain = await gantry.createProject({ name: 'plain', initialize_with_readme: true });
  // The same as \`plain\`: how far two projects without hooks differ is this bench's noise.
  const again = await gantry.createProject({ name: 'plain-again', initialize_with_readme: true });
  const hooked = await gantry.createProject({ name: 'hooked', initialize_with_readme: true });
  const heldProject = await gantry.createProject({ name: 'hooked-held', initialize_with_readme: true });
  for (const project of [hooked, heldProject]) {
    for (let index = 0; index < hookCount; index += 1) await api('POST', `/projects/${project.id}/hooks`, { url: `http://127.0.0.1:${receiverPort}/hook/${index}` });
  }

  type Kind = 'plain' | 'again' | 'hooked' | 'held';
  const hookWorker = ciServicesOf(gantry.coordinator).hookWorker;
  const times: Record<Kind, number[]> = { plain: [], again: [], hooked: [], held: [] };
  const cpu: Record<Kind, { own: number; tree: number; loop: number; main: number; waited: number }> = {
    plain: { own: 0, tree: 0, loop: 0, main: 0, waited: 0 },
    again: { own: 0, tree: 0, loop: 0, main: 0, waited: 0 },
    hooked: { own: 0, tree: 0, loop: 0, main: 0, waited: 0 },
    held: { own: 0, tree: 0, loop: 0, main: 0, waited: 0 },
  };
  /** Each thread's CPU in the rounds without hooks, by name (BENCH_THREADS=1 prints it). */
  const plainThreads = new Map<string, number>();
  const threadsAtStart = new Set(threadCpuMs().keys());
  /** CPU of the threads started since (the delivery thread) in the hooked rounds. */
  let hookThreadCpu = 0;
  let sent = 0;
  let hookedPushes = 0;
  let hookedWallMs = 0;
  const deliveriesArrived = async (): Promise<void> => {
    const reached = nextMessage('reached');
    ask({ type: 'await', count: hookedPushes * hookCount });
    await reached;
  };
  /** `count` commits to the project, one at a time; a hooked round lasts until their deliveries arrived. */
  const round = async (which: Kind, count: number): Promise<void> => {
    const projectId = { plain: plain.id, again: again.id, hooked: hooked.id, held: heldProject.id }[which];
    if (which === 'held') await hookWorker.stop();
    if (profiling && which === profiledKind) await profiler.post('Profiler.start');
    const before = cpuNow();
    const started = now();
    let due = now();
    for (let index = 0; index < count; index += 1) {
      if (pace > 0) {
        due += -Math.log(1 - random()) * (1000 / pace);
        const wait = due - now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const pushStarted = now();
      const made = await api('POST', `/projects/${projectId}/repository/commits`, {
        branch: 'main', commit_message: `change ${sent}`, actions: [{ action: 'create', file_path: `f${sent}.txt`, content: `${sent}\n` }],
      });
      const answered = now();
      sent += 1;
      if (which === 'hooked' || which === 'held') hookedPushes += 1;
      // A held push's deliveries wait for the round's end: their latency is not the delivery's.
      if (which === 'hooked') answeredAt.set(String(made.id), answered);
      times[which].push(answered - pushStarted);
    }
    if (which === 'hooked') {
      await deliveriesArrived();
      hookedWallMs += now() - started;
    }
    const after = cpuNow();
    if (profiling && which === profiledKind) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(`${profiling}-${sent}.cpuprofile`, JSON.stringify(profile));
    }
    cpu[which].own += after.own - before.own;
    cpu[which].tree += after.tree - before.tree;
    cpu[which].loop += after.loop - before.loop;
    cpu[which].main += after.main - before.main;
    cpu[which].waited += after.waited - before.waited;
    if (which === 'hooked') {
      for (const [tid, thread] of after.threads) if (!threadsAtStart.has(tid)) hookThreadCpu += thread.ms - (before.threads.get(tid)?.ms ?? 0);
    }
    if (which === 'plain') {
      for (const [tid, thread] of after.threads) {
        const name = tid === process.pid ? 'main' : `${thread.name}:${tid}${threadsAtStart.has(tid) ? '' : ' (new since start)'}`;
        plainThreads.set(name, (plainThreads.get(name) ?? 0) + thread.ms - (before.threads.get(tid)?.ms ?? 0));
      }
    }
    if (which === 'held') {
      hookWorker.start();
      hookWorker.wake();
      await deliveriesArrived();
    }
  };

  // Not measured: one push to each project first, so that what starts once (the delivery thread, the modules it loads) is done.
  for (const projectId of [plain.id, again.id, hooked.id, heldProject.id]) {
    await api('POST', `/projects/${projectId}/repository/commits`, { branch: 'main', commit_message: 'warm-up', actions: [{ action: 'create', file_path: 'warm-up.txt', content: 'warm-up\n' }] });
  }
  hookedPushes += 2;
  await deliveriesArrived();

  const kinds: Kind[] = ['plain', 'again', 'hooked', 'held'];
  for (let index = 0; index < rounds; index += 1) {
    const count = Math.floor(pushes / rounds) + (index < pushes % rounds ? 1 : 0);
    // Each round turns the order, so that no kind always follows the same one.
    for (let turn = 0; turn < kinds.length; turn += 1) await round(kinds[(index + turn) % kinds.length]!, count);
  }

  const reported = nextMessage('report');
  ask({ type: 'report' });
  const { arrivals, cpuMs: receiverCpuMs } = await reported;
  receiver.kill();
  const deliveryLatencies = arrivals.flatMap(([after, arrived]) => {
    const answered = answeredAt.get(after);
    return answered === undefined ? [] : [arrived - answered];
  });
  const sorted = (list: number[]) => [...list].sort((a, b) => a - b);
  const sortedDeliveries = sorted(deliveryLatencies);
  const perPush = (ms: number) => Math.round((ms / pushes) * 100) / 100;
  if (process.env.BENCH_THREADS) console.error(JSON.stringify(Object.fromEntries([...plainThreads].map(([name, ms]) => [name, perPush(ms)]))));
  console.log(JSON.stringify({
    bench: 'webhooks',
    pushes,
    hooks: hookCount,
    rounds,
    // 'thread' (a SQLite file, as `coordinator serve` uses) unless the coordinator sends from its own thread.
    hook_worker: hookWorker.mode,
    deliveries: deliveryLatencies.length,
    delivery_ms_p50: percentile(sortedDeliveries, 0.5),
    delivery_ms_p99: percentile(sortedDeliveries, 0.99),
    deliveries_per_second: Math.round((deliveryLatencies.length / (hookedWallMs / 1000)) * 10) / 10,
    pace: pace > 0 ? pace : 'back to back',
    push_ms_p50_without_hooks: percentile(sorted(times.plain), 0.5),
    push_ms_p50_without_hooks_again: percentile(sorted(times.again), 0.5),
    push_ms_p50_with_hooks: percentile(sorted(times.hooked), 0.5),
    push_ms_p99_without_hooks: percentile(sorted(times.plain), 0.99),
    push_ms_p99_without_hooks_again: percentile(sorted(times.again), 0.99),
    push_ms_p99_with_hooks: percentile(sorted(times.hooked), 0.99),
    push_ms_p50_with_hooks_held: percentile(sorted(times.held), 0.5),
    cpu_ms_per_push_without_hooks: perPush(cpu.plain.own),
    cpu_ms_per_push_with_hooks: perPush(cpu.hooked.own),
    cpu_ms_per_push_with_hooks_held: perPush(cpu.held.own),
    cpu_ms_per_push_with_git_without_hooks: perPush(cpu.plain.tree),
    cpu_ms_per_push_with_git_with_hooks: perPush(cpu.hooked.tree),
    cpu_ms_per_push_with_git_with_hooks_held: perPush(cpu.held.tree),
    main_thread_cpu_ms_per_push_without_hooks: perPush(cpu.plain.main),
    main_thread_cpu_ms_per_push_with_hooks: perPush(cpu.hooked.main),
    main_thread_cpu_ms_per_push_with_hooks_held: perPush(cpu.held.main),
    main_thread_waited_ms_per_push_without_hooks: perPush(cpu.plain.waited),
    main_thread_waited_ms_per_push_with_hooks: perPush(cpu.hooked.waited),
    main_thread_waited_ms_per_push_with_hooks_held: perPush(cpu.held.waited),
    loop_ms_per_push_without_hooks: perPush(cpu.plain.loop),
    loop_ms_per_push_with_hooks: perPush(cpu.hooked.loop),
    loop_ms_per_push_with_hooks_held: perPush(cpu.held.loop),
    // The delivery thread's own CPU (0 with --in-process, where the main thread sends).
    delivery_thread_cpu_ms_per_delivery: Math.round((hookThreadCpu / Math.max(1, deliveryLatencies.length)) * 100) / 100,
    receiver_cpu_ms_per_delivery: Math.round((receiverCpuMs / Math.max(1, arrivals.length)) * 100) / 100,
    // The hooks' change to the p50 beside the noise: the change between the two projects without hooks.
    push_p50_change_with_hooks_pct: changePct(percentile(sorted(times.plain), 0.5), percentile(sorted(times.hooked), 0.5)),
    push_p50_change_without_hooks_pct: changePct(percentile(sorted(times.plain), 0.5), percentile(sorted(times.again), 0.5)),
    targets: TARGETS,
    loadavg_1m: Math.round(loadavg()[0]! * 10) / 10,
  }));
} finally {
  await gantry.close();
}
