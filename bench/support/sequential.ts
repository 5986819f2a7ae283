/**
 * Sequential GETs in their own process (so the server's process CPU is the server's alone):
 * `count` requests one after another on one keep-alive connection, and prints
 * `{"samples":…,"p50_ms":…,"p99_ms":…,"max_ms":…,"non200":…}`.
 * Run: node --import tsx bench/support/sequential.ts <url> <count> [header=value ...]
 */
import { performance } from 'node:perf_hooks';
import { percentile } from './coordinator.ts';

const [url, countArg, ...headerArgs] = process.argv.slice(2);
if (!url || !countArg) throw new Error('usage: sequential.ts <url> <count> [header=value ...]');
const headers = Object.fromEntries(headerArgs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const times: number[] = [];
let non200 = 0;
for (let sent = 0; sent < Number(countArg); sent += 1) {
  const started = performance.now();
  const response = await fetch(url, { headers });
  await response.arrayBuffer();
  times.push(performance.now() - started);
  if (response.status !== 200) non200 += 1;
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ samples: times.length, p50_ms: percentile(times, 0.5), p99_ms: percentile(times, 0.99), max_ms: percentile(times, 1), non200 }));
