import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance } from 'fastify';
import { request as httpRequest } from 'undici';
import { installErrorHandling } from '../../src/coordinator/http/errors.ts';
import { collectMultipartBodies } from '../../src/coordinator/http/multipart.ts';

const MiB = 1024 * 1024;
const BOUNDARY = 'gantry-upload-boundary';

/** A multipart body with one field and one file of `size` bytes, generated as it is sent. */
async function* multipartBody(size: number): AsyncGenerator<Buffer> {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`);
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  // A fresh chunk each time: the stream may still hold the previous one.
  for (let offset = 0; offset < size; offset += MiB) yield Buffer.alloc(Math.min(MiB, size - offset), offset / MiB);
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

function expectedDigest(size: number): string {
  const hash = createHash('sha256');
  const chunk = Buffer.alloc(MiB);
  for (let offset = 0; offset < size; offset += MiB) {
    chunk.fill(offset / MiB);
    hash.update(offset + MiB <= size ? chunk : chunk.subarray(0, size - offset));
  }
  return hash.digest('hex');
}

describe('multipart uploads stream to disk', () => {
  const uploadDirectory = mkdtempSync(path.join(tmpdir(), 'gantry-uploads-'));
  const limit = 300 * MiB;
  let app: FastifyInstance;
  let address: string;
  let seen: { note: unknown; filename: string; size: number; sha256: string; existedDuringRequest: boolean; path: string } | null = null;

  before(async () => {
    app = Fastify();
    installErrorHandling(app);
    await app.register(multipart, { limits: { fileSize: limit } });
    collectMultipartBodies(app, uploadDirectory);
    app.post('/upload', async (request) => {
      const file = request.uploads?.file;
      assert.ok(file, 'the upload is collected');
      const hash = createHash('sha256');
      for await (const chunk of createReadStream(file.path)) hash.update(chunk as Buffer);
      seen = { note: (request.body as Record<string, unknown>).note, filename: file.filename, size: file.size, sha256: hash.digest('hex'), existedDuringRequest: existsSync(file.path), path: file.path };
      return { ok: true };
    });
    address = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await app.close();
    rmSync(uploadDirectory, { recursive: true, force: true });
  });

  const send = (size: number) =>
    httpRequest(`${address}/upload`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: Readable.from(multipartBody(size)) });

  it('writes a 256 MiB file to disk as it arrives: the process grows by far less than the file', async () => {
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const response = await send(256 * MiB);
    clearInterval(sampler);
    assert.equal(response.statusCode, 200, await response.body.text());
    assert.ok(seen);
    assert.equal(seen.note, 'hello');
    assert.equal(seen.filename, 'big.bin');
    assert.equal(seen.size, 256 * MiB);
    assert.equal(seen.sha256, expectedDigest(256 * MiB));
    assert.equal(seen.existedDuringRequest, true);
    const growth = peak - before;
    assert.ok(growth < 64 * MiB, `RSS grew by ${Math.round(growth / MiB)} MiB for a 256 MiB upload`);
  });

  it('removes the temporary file once the request is answered', async () => {
    assert.ok(seen);
    for (let attempt = 0; attempt < 50 && existsSync(seen.path); attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(existsSync(seen.path), false);
    assert.deepEqual(readdirSync(uploadDirectory), []);
  });

  it('answers 413 past the upload limit and keeps nothing of the partial file', async () => {
    const response = await send(limit + 8 * MiB);
    assert.equal(response.statusCode, 413, await response.body.text());
    for (let attempt = 0; attempt < 50 && readdirSync(uploadDirectory).length > 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(readdirSync(uploadDirectory), []);
  });
});
