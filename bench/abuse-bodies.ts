/**
 * Resource abuse by request bodies, printed as one JSON line: 8 anonymous clients at once
 * each send a 200 MB JSON body to `POST /api/v4/projects` of a listening coordinator, first
 * with a declared Content-Length, then chunked (no length). Reports the process's peak RSS
 * growth over its idle RSS, measured in the same run (target: under 50 MB), how long the
 * answers took and their statuses. A signed-in client sending the same body (413 past the
 * API body limit) is measured the same way.
 * Run: node --expose-gc --import tsx bench/abuse-bodies.ts
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCoordinator } from '../src/coordinator/app.ts';
import { silentLogger } from '../src/shared/logger.ts';

const CLIENTS = 8;
const BODY_BYTES = 200 * 1024 * 1024;
const ROOT_TOKEN = 'bench-root-token-0123456789';
const MiB = 1024 * 1024;

interface Outcome {
  status: number;
  ms: number;
  sent: number;
}

/** Streams `BODY_BYTES` of a JSON document from one reused chunk; resolves with the answer's status once it has arrived. */
function sendHugeBody(port: number, headers: Record<string, string>, declareLength: boolean): Promise<Outcome> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const first = Buffer.concat([Buffer.from('{"description":"'), chunk]).subarray(0, chunk.length);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/v4/projects',
      agent: false,
      headers: { 'content-type': 'application/json', ...(declareLength ? { 'content-length': String(BODY_BYTES) } : {}), ...headers },
    });
    request.on('response', (response) => {
      answered = true;
      response.resume();
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, ms: Math.round(performance.now() - started), sent });
        request.destroy();
      });
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = (): void => {
      while (!answered && sent < BODY_BYTES) {
        const piece = sent === 0 ? first : chunk;
        const size = Math.min(piece.length, BODY_BYTES - sent);
        sent += size;
        if (!request.write(piece.subarray(0, size))) {
          request.once('drain', pump);
          return;
        }
      }
      if (!answered) request.end();
    };
    pump();
  });
}

async function measure(port: number, headers: Record<string, string>, declareLength: boolean) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const outcomes = await Promise.all(Array.from({ length: CLIENTS }, () => sendHugeBody(port, headers, declareLength)));
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  const times = outcomes.map((outcome) => outcome.ms).sort((a, b) => a - b);
  return {
    statuses: [...new Set(outcomes.map((outcome) => outcome.status))],
    rss_growth_mb: Math.round(((peak - before) / MiB) * 10) / 10,
    slowest_answer_ms: times.at(-1),
    mb_sent_per_client: Math.round(Math.max(...outcomes.map((outcome) => outcome.sent)) / MiB),
  };
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'gantry-abuse-'));
const coordinator = await createCoordinator({ dataDir, databaseUrl: ':memory:', rootToken: ROOT_TOKEN, logger: silentLogger() });
await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
const { port } = coordinator.app.server.address() as AddressInfo;
try {
  // Warm up the routes, the database and the JIT so the idle figure is the steady state.
  for (let index = 0; index < 20; index += 1) {
    await fetch(`http://127.0.0.1:${port}/api/v4/projects`, { headers: { 'private-token': ROOT_TOKEN } }).then((response) => response.arrayBuffer());
  }
  globalThis.gc?.();
  const idleRss = process.memoryUsage().rss;
  const anonymousDeclared = await measure(port, {}, true);
  const anonymousChunked = await measure(port, {}, false);
  const signedInDeclared = await measure(port, { 'private-token': ROOT_TOKEN }, true);
  const signedInChunked = await measure(port, { 'private-token': ROOT_TOKEN }, false);
  process.stdout.write(
    `${JSON.stringify({
      clients: CLIENTS,
      body_mb: BODY_BYTES / MiB,
      idle_rss_mb: Math.round(idleRss / MiB),
      anonymous_with_length: anonymousDeclared,
      anonymous_chunked: anonymousChunked,
      signed_in_with_length: signedInDeclared,
      signed_in_chunked: signedInChunked,
      target_rss_growth_mb: 50,
    })}\n`,
  );
} finally {
  await coordinator.close();
  await rm(dataDir, { recursive: true, force: true });
}
