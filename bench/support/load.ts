/**
 * A load generator in its own process (so it does not share the event loop of the server it
 * measures): keeps `connections` keep-alive requests in flight for `seconds` and prints
 * `{"rps":…,"p50_ms":…,"p99_ms":…,"non2xx":…}`.
 * Run: node bench/support/load.ts <url> <seconds> <connections> [header=value ...]
 */
import autocannon from 'autocannon';

const [url, seconds, connections, ...headerArgs] = process.argv.slice(2);
if (!url) throw new Error('usage: load.ts <url> <seconds> <connections> [header=value ...]');
const headers = Object.fromEntries(headerArgs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
const result = await autocannon({ url, duration: Number(seconds ?? 5), connections: Number(connections ?? 50), headers });
console.log(JSON.stringify({ rps: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors }));
