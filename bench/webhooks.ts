/**
 * Webhook deliveries, printed as one JSON line. Two projects on one coordinator: one without
 * hooks (the baseline, measured in the same run) and one with `--hooks` push hooks to a
 * receiver on loopback. `--pushes` API commits (each a push event) go to each project, one at a
 * time; measured: each push's own latency (its request's wall time) in both projects, the
 * delivery latency from a push's answer to each receiver request for it (p50/p99), deliveries
 * per second (all deliveries over the time from the first hooked push to the last delivery), and
 * CPU per delivery (process CPU of the hooked phase minus the plain phase's, over the
 * deliveries; the receiver runs in the same process and is counted too).
 * Run: npx tsx bench/webhooks.ts [--pushes 100] [--hooks 10]
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { waitUntil } from '../test/helpers/bounded.ts';
import { percentile, ROOT_TOKEN, startBenchCoordinator } from './support/coordinator.ts';

const { values } = parseArgs({ options: { pushes: { type: 'string', default: '100' }, hooks: { type: 'string', default: '10' } } });
const pushes = Number(values.pushes);
const hookCount = Number(values.hooks);
const TARGETS = { delivery_p50_ms_max: 100, delivery_p99_ms_max: 1_000 };

/** When each push (by its new SHA) was answered, and when each hook request for it arrived. */
const answeredAt = new Map<string, number>();
const deliveryLatencies: number[] = [];
let lastDeliveryAt = 0;
const receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const arrived = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { after?: string };
    const answered = answeredAt.get(body.after ?? '');
    if (answered !== undefined) deliveryLatencies.push(arrived - answered);
    lastDeliveryAt = arrived;
    response.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverBase = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const gantry = await startBenchCoordinator();
const api = async (method: string, url: string, body?: unknown) => {
  const response = await fetch(`${gantry.base}/api/v4${url}`, { method, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
};

try {
  await api('PUT', '/application/settings', { allow_local_requests_from_web_hooks_and_services: true });
  const plain = await gantry.createProject({ name: 'plain', initialize_with_readme: true });
  const hooked = await gantry.createProject({ name: 'hooked', initialize_with_readme: true });
  for (let index = 0; index < hookCount; index += 1) await api('POST', `/projects/${hooked.id}/hooks`, { url: `${receiverBase}/hook/${index}` });

  /** `pushes` commits to the project, one at a time; answers each one's wall time (ms). */
  const pushAll = async (projectId: number, record: boolean): Promise<number[]> => {
    const times: number[] = [];
    for (let index = 0; index < pushes; index += 1) {
      const started = performance.now();
      const made = await api('POST', `/projects/${projectId}/repository/commits`, {
        branch: 'main', commit_message: `change ${index}`, actions: [{ action: 'create', file_path: `f${index}.txt`, content: `${index}\n` }],
      });
      const answered = performance.now();
      if (record) answeredAt.set(String(made.id), answered);
      times.push(answered - started);
    }
    return times;
  };

  const plainCpu = process.cpuUsage();
  const plainTimes = await pushAll(plain.id, false);
  const plainCpuMs = cpuMs(process.cpuUsage(plainCpu));

  const hookedCpu = process.cpuUsage();
  const firstPush = performance.now();
  const hookedTimes = await pushAll(hooked.id, true);
  const expected = pushes * hookCount;
  await waitUntil(() => deliveryLatencies.length >= expected, 'every delivery', { timeoutMs: 600_000, intervalMs: 20 });
  const hookedCpuMs = cpuMs(process.cpuUsage(hookedCpu));

  const sortedDeliveries = [...deliveryLatencies].sort((a, b) => a - b);
  const sortedPlain = [...plainTimes].sort((a, b) => a - b);
  const sortedHooked = [...hookedTimes].sort((a, b) => a - b);
  console.log(JSON.stringify({
    bench: 'webhooks',
    pushes,
    hooks: hookCount,
    deliveries: deliveryLatencies.length,
    delivery_ms_p50: percentile(sortedDeliveries, 0.5),
    delivery_ms_p99: percentile(sortedDeliveries, 0.99),
    deliveries_per_second: Math.round((deliveryLatencies.length / ((lastDeliveryAt - firstPush) / 1000)) * 10) / 10,
    push_ms_p50_without_hooks: percentile(sortedPlain, 0.5),
    push_ms_p50_with_hooks: percentile(sortedHooked, 0.5),
    push_ms_p99_without_hooks: percentile(sortedPlain, 0.99),
    push_ms_p99_with_hooks: percentile(sortedHooked, 0.99),
    cpu_ms_per_push_without_hooks: Math.round((plainCpuMs / pushes) * 100) / 100,
    cpu_ms_per_delivery: Math.round(((hookedCpuMs - plainCpuMs) / expected) * 100) / 100,
    targets: TARGETS,
    loadavg_1m: Math.round(loadavg()[0]! * 10) / 10,
  }));
} finally {
  await gantry.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
}

function cpuMs(usage: NodeJS.CpuUsage): number {
  return (usage.user + usage.system) / 1000;
}
