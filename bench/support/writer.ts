/**
 * Writes at a steady rate until killed: `PUT <url>` with a changing description, `rate` times
 * per second in total, from `workers` connections at once (each paced at rate / workers, so a
 * slow answer delays one worker, not the whole rate). Prints how many writes succeeded when
 * it gets SIGTERM.
 * Run: node bench/support/writer.ts <url> <rate> <token> [workers]
 */
const [url, rate, token, workerCount] = process.argv.slice(2);
if (!url || !token) throw new Error('usage: writer.ts <url> <rate> <token> [workers]');
const workers = Number(workerCount ?? 32);
const interval = (1000 / Number(rate ?? 200)) * workers;
let done = 0;
let failed = 0;
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});
const started = performance.now();

async function worker(offset: number): Promise<void> {
  for (let sent = 0; !stopping; sent += 1) {
    const wait = started + offset + sent * interval - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (stopping) break;
    const response = await fetch(url!, { method: 'PUT', headers: { 'PRIVATE-TOKEN': token!, 'content-type': 'application/json' }, body: JSON.stringify({ description: `write ${done}` }) });
    await response.arrayBuffer();
    if (response.ok) done += 1;
    else failed += 1;
  }
}

const running = Array.from({ length: workers }, (_, index) => worker((index * interval) / workers));
await new Promise<void>((resolve) => {
  const check = setInterval(() => {
    if (stopping) {
      clearInterval(check);
      resolve();
    }
  }, 50);
});
const elapsed = performance.now() - started;
await Promise.allSettled(running);
console.log(JSON.stringify({ writes: done, failed, per_second: Math.round((done / elapsed) * 1000) }));
