/**
 * Concurrent creators in their own process: `workers` loops POST `<url>` (an issue title as
 * JSON) until `total` requests have been sent, and prints
 * `{"created":…,"failed":…,"seconds":…,"per_second":…,"iids_unique":…}`.
 * Run: node --import tsx bench/support/creators.ts <url> <workers> <total> <token>
 */
import { performance } from 'node:perf_hooks';

const [url, workersArg, totalArg, token] = process.argv.slice(2);
if (!url || !workersArg || !totalArg || !token) throw new Error('usage: creators.ts <url> <workers> <total> <token>');
const total = Number(totalArg);
let sent = 0;
let failed = 0;
const iids: number[] = [];

async function creator(worker: number): Promise<void> {
  while (sent < total) {
    sent += 1;
    const response = await fetch(url!, {
      method: 'POST',
      headers: { 'private-token': token!, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `created by worker ${worker}`, labels: 'a,c' }),
    });
    const body = (await response.json()) as { iid?: number };
    if (response.status === 201 && typeof body.iid === 'number') iids.push(body.iid);
    else failed += 1;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: Number(workersArg) }, (_, worker) => creator(worker)));
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({
  created: iids.length,
  failed,
  seconds: Math.round(seconds * 100) / 100,
  per_second: Math.round(iids.length / seconds),
  iids_unique: new Set(iids).size === iids.length,
}));
