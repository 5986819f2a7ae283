/**
 * Resource abuse by request bodies: 8 anonymous clients at once each send a 200 MB JSON body
 * to `POST /api/v4/projects` of a listening coordinator (in this process), first with a
 * declared Content-Length, then chunked (no length). Reports the process's peak RSS growth
 * over its idle RSS, measured in the same run just before (target: under 50 MB), how long the
 * answers took and their statuses. A signed-in client sending the same body (413 past the
 * API body limit) is measured the same way.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type BenchCoordinator, ROOT_TOKEN } from './coordinator.ts';

export const RSS_GROWTH_TARGET_MB = 50;
const CLIENTS = 8;
const BODY_BYTES = 200 * 1024 * 1024;
const MiB = 1024 * 1024;

let exposedGc: (() => void) | undefined;

/** A full garbage collection before each RSS reading, whether or not node was started with --expose-gc. */
function collectGarbage(): void {
  if (!exposedGc) {
    setFlagsFromString('--expose-gc');
    exposedGc = runInNewContext('gc') as () => void;
  }
  exposedGc();
}

export interface BodiesFigures {
  statuses: number[];
  rss_growth_mb: number;
  peak_rss_mb: number;
  slowest_answer_ms: number;
  mb_sent_per_client: number;
}

export interface AbuseBodiesFigures {
  clients: number;
  body_mb: number;
  /** RSS of this process (coordinator and clients) at rest, after a warm-up and a full GC. */
  baseline_idle_rss_mb: number;
  anonymous_with_length: BodiesFigures;
  anonymous_chunked: BodiesFigures;
  signed_in_with_length: BodiesFigures;
  signed_in_chunked: BodiesFigures;
}

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

async function measure(port: number, headers: Record<string, string>, declareLength: boolean): Promise<BodiesFigures> {
  collectGarbage();
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
    peak_rss_mb: Math.round(peak / MiB),
    slowest_answer_ms: times.at(-1) ?? Number.NaN,
    mb_sent_per_client: Math.round(Math.max(...outcomes.map((outcome) => outcome.sent)) / MiB),
  };
}

export async function abuseBodies(coordinator: BenchCoordinator): Promise<AbuseBodiesFigures> {
  const { base, port } = coordinator;
  // Warm up the routes, the database and the JIT so the idle figure is the steady state.
  for (let index = 0; index < 20; index += 1) {
    await fetch(`${base}/api/v4/projects`, { headers: { 'private-token': ROOT_TOKEN } }).then((response) => response.arrayBuffer());
  }
  collectGarbage();
  const idleRss = process.memoryUsage().rss;
  const anonymousDeclared = await measure(port, {}, true);
  const anonymousChunked = await measure(port, {}, false);
  const signedInDeclared = await measure(port, { 'private-token': ROOT_TOKEN }, true);
  const signedInChunked = await measure(port, { 'private-token': ROOT_TOKEN }, false);
  return {
    clients: CLIENTS,
    body_mb: BODY_BYTES / MiB,
    baseline_idle_rss_mb: Math.round(idleRss / MiB),
    anonymous_with_length: anonymousDeclared,
    anonymous_chunked: anonymousChunked,
    signed_in_with_length: signedInDeclared,
    signed_in_chunked: signedInChunked,
  };
}
