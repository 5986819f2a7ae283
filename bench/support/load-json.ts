/**
 * Like load.ts, for a POST with a JSON body (runner-protocol requests): keeps `connections`
 * keep-alive requests in flight for `seconds` and prints
 * `{"rps":…,"p50_ms":…,"p99_ms":…,"non2xx":…,"errors":…}`.
 * Run: node bench/support/load-json.ts <url> <seconds> <connections> <json body>
 */
import autocannon from 'autocannon';

const [url, seconds, connections, body] = process.argv.slice(2);
if (!url || body === undefined) throw new Error('usage: load-json.ts <url> <seconds> <connections> <json body>');
const result = await autocannon({
  url,
  method: 'POST',
  duration: Number(seconds ?? 5),
  connections: Number(connections ?? 50),
  headers: { 'content-type': 'application/json', accept: 'application/json' },
  body,
});
console.log(JSON.stringify({ rps: Math.round(result.requests.average), p50_ms: result.latency.p50, p99_ms: result.latency.p99, non2xx: result.non2xx, errors: result.errors }));
