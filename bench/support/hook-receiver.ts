/**
 * A webhook receiver on loopback in a process of its own (so that its CPU is not the
 * coordinator's): answers every request 200 and notes when each arrived (epoch milliseconds,
 * comparable across processes) with the pushed SHA (`after`) of its payload. Started by
 * bench/webhooks.ts with an IPC channel: it sends `{ port }` once listening; asked
 * `{ type: 'await', count }`, it answers `{ type: 'reached' }` once that many requests came;
 * asked `{ type: 'report' }`, it answers the arrivals and its CPU time since it listened, and
 * stops listening (the bench then ends it).
 * Run: (forked) node --import tsx bench/support/hook-receiver.ts
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverRequest = { type: 'await'; count: number } | { type: 'report' };
export type ReceiverMessage = { type: 'listening'; port: number } | { type: 'reached' } | { type: 'report'; arrivals: Array<[string, number]>; cpuMs: number };

const arrivals: Array<[string, number]> = [];
let waitingFor = Number.POSITIVE_INFINITY;
/** CPU used by the time it listens (loading, compiling): not the requests'. */
let startupCpu: NodeJS.CpuUsage | undefined;
const send = (message: ReceiverMessage): void => void process.send?.(message);

const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const arrived = performance.timeOrigin + performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { after?: string };
    arrivals.push([body.after ?? '', arrived]);
    response.writeHead(200).end('ok');
    if (arrivals.length >= waitingFor) {
      waitingFor = Number.POSITIVE_INFINITY;
      send({ type: 'reached' });
    }
  });
});

process.on('message', (message: ReceiverRequest) => {
  if (message.type === 'await') {
    if (arrivals.length >= message.count) send({ type: 'reached' });
    else waitingFor = message.count;
    return;
  }
  const cpu = process.cpuUsage(startupCpu);
  send({ type: 'report', arrivals, cpuMs: (cpu.user + cpu.system) / 1000 });
  // The bench ends this process once the report is in: exiting here could lose the message.
  server.closeAllConnections();
  server.close();
});

server.listen(0, '127.0.0.1', () => {
  startupCpu = process.cpuUsage();
  send({ type: 'listening', port: (server.address() as AddressInfo).port });
});
