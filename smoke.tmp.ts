import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCoordinator } from './src/coordinator/app.ts';
const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-smoke-'));
const c = await createCoordinator({ dataDir, databaseUrl: ':memory:', rootToken: 'root-token-0123456789abcdef' });
for (const url of ['/-/health', '/-/liveness', '/-/readiness', '/-/readiness?all=1', '/nope', '/api/v4/version']) {
  const r = await c.app.inject({ url, headers: { 'private-token': 'root-token-0123456789abcdef' } });
  console.log(url, r.statusCode, r.headers['content-type'], r.body.slice(0, 300));
}
const far = await c.app.inject({ url: '/-/readiness?all=1', remoteAddress: '203.0.113.9' });
console.log('far', far.statusCode, far.body);
const farh = await c.app.inject({ url: '/-/health', remoteAddress: '203.0.113.9' });
console.log('far health', farh.statusCode, JSON.stringify(farh.body), farh.headers['content-type']);
const m = await c.app.inject({ url: '/-/metrics' });
console.log(m.statusCode, m.headers['content-type']);
console.log(m.body.split('\n').filter((l) => /^(http_|gantry_)/.test(l)).join('\n'));
await c.close();
