import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { request as httpRequest } from 'undici';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const MiB = 1024 * 1024;
const SIZE = 128 * MiB;

/** `size` bytes made as they are sent, a fresh chunk each time (the stream may still hold the previous one). */
function* generated(size: number): Generator<Buffer> {
  for (let offset = 0; offset < size; offset += MiB) yield Buffer.alloc(Math.min(MiB, size - offset), offset / MiB);
}

describe('generic package uploads stream to disk', () => {
  let gantry: TestCoordinator;
  let address: string;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    address = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}`;
  });
  after(() => gantry.close());

  it('stores a 128 MiB upload while the process grows by far less than the file', async () => {
    const project = await gantry.api('POST', '/projects', { body: { name: 'big' } });
    const hash = createHash('sha256');
    for (const chunk of generated(SIZE)) hash.update(chunk);
    global.gc?.();
    const start = process.memoryUsage().rss;
    let peak = start;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const response = await httpRequest(`${address}/api/v4/projects/${project.json.id}/packages/generic/big/1.0/big.bin?select=package_file`, {
      method: 'PUT',
      headers: { 'private-token': gantry.rootToken },
      body: Readable.from(generated(SIZE)),
    });
    clearInterval(sampler);
    const answer = (await response.body.json()) as Record<string, unknown>;
    assert.equal(response.statusCode, 200, JSON.stringify(answer));
    assert.equal(answer.size, SIZE);
    assert.equal(answer.file_sha256, hash.digest('hex'));
    const growth = peak - start;
    assert.ok(growth < 48 * MiB, `RSS grew by ${Math.round(growth / MiB)} MiB for a 128 MiB upload`);
  });
});
