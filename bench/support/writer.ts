/**
 * Writes at a steady rate until killed: `PUT <url>` with a changing description, `rate` times
 * per second (paced, one at a time). Prints how many writes succeeded when it gets SIGTERM.
 * Run: node bench/support/writer.ts <url> <rate> <token>
 */
const [url, rate, token] = process.argv.slice(2);
if (!url || !token) throw new Error('usage: writer.ts <url> <rate> <token>');
const interval = 1000 / Number(rate ?? 200);
let done = 0;
let failed = 0;
let stopping = false;
process.on('SIGTERM', () => {
  stopping = true;
});
const started = performance.now();
while (!stopping) {
  const due = started + (done + failed) * interval;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const response = await fetch(url, { method: 'PUT', headers: { 'PRIVATE-TOKEN': token, 'content-type': 'application/json' }, body: JSON.stringify({ description: `write ${done}` }) });
  await response.arrayBuffer();
  if (response.ok) done += 1;
  else failed += 1;
}
console.log(JSON.stringify({ writes: done, failed, per_second: Math.round((done / (performance.now() - started)) * 1000) }));
