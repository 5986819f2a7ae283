import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import CRC32 from 'crc-32';
import { FileTraceStore } from '../../src/storage/fs/traces.ts';
import { openDatabase } from '../../src/storage/sql/database.ts';
import { SqlTraceStore } from '../../src/storage/sql/stores/trace-chunks.ts';
import type { TraceStore } from '../../src/storage/types-blobs.ts';
import { buildJob, createGroup, createPipeline, createProject, openCiTestDatabase, type CiTestDatabase } from './sql/ci-fixtures.ts';

async function text(stream: Readable | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const checksumOf = (bytes: Buffer) => `crc32:${(CRC32.buf(bytes) >>> 0).toString(16).padStart(8, '0')}`;

describe('Trace stores', () => {
  let database: CiTestDatabase & { url: string };
  let directory: string;
  let jobIds: number[];

  before(async () => {
    database = await openCiTestDatabase();
    directory = await mkdtemp(join(tmpdir(), 'gantry-traces-'));
    const project = await createProject(database.stores, await createGroup(database.stores, 'traces'), 'app');
    const pipeline = await createPipeline(database.stores, project);
    const jobs = await database.stores.jobs.insertMany(Array.from({ length: 20 }, (_, index) => buildJob(pipeline, `job ${index}`)));
    jobIds = jobs.map((job) => job.id);
  });
  after(async () => {
    await database.close();
    await rm(directory, { recursive: true, force: true });
  });

  const implementations: Array<[string, () => TraceStore, number]> = [
    ['files', () => new FileTraceStore(directory), 0],
    ['database chunks', () => new SqlTraceStore(database.opened.db), 10],
  ];

  for (const [name, create, firstJob] of implementations) {
    describe(name, () => {
      it('appends by offset, refuses other offsets without writing, and reads byte-exact ranges', async () => {
        const store = create();
        const job = jobIds[firstJob];
        assert.equal(await store.size(job), 0);
        assert.equal(await store.read(job), undefined);
        assert.equal(await store.checksum(job), undefined);
        const parts = [Buffer.from('Running with gitlab-runner\r\n\x1b[32;1mok\x1b[0;m\n'), randomBytes(70_000), Buffer.from([0xff, 0xfe, 0x00, 0x0a])];
        let size = 0;
        for (const part of parts) {
          assert.deepEqual(await store.append(job, size, part), { size: size + part.length });
          size += part.length;
        }
        assert.deepEqual(await store.append(job, 10, Buffer.from('rewrite')), { conflict: size }, 'behind the end');
        assert.deepEqual(await store.append(job, size + 5, Buffer.from('gap')), { conflict: size }, 'past the end');
        assert.deepEqual(await store.append(job, size, Buffer.alloc(0)), { size });
        const whole = Buffer.concat(parts);
        assert.equal(await store.size(job), whole.length);
        assert.deepEqual(await text(await store.read(job)), whole);
        assert.deepEqual(await text(await store.read(job, { start: 40, end: 70_010 })), whole.subarray(40, 70_010), 'a range across chunks');
        assert.deepEqual(await text(await store.read(job, { start: whole.length - 2 })), whole.subarray(whole.length - 2));
        assert.deepEqual(await text(await store.read(job, { start: 5, end: 5 })), Buffer.alloc(0));
        assert.equal(await store.checksum(job), checksumOf(whole));
      });

      it('lets exactly one of two appends at one offset win', async () => {
        const store = create();
        const job = jobIds[firstJob + 1];
        await store.append(job, 0, Buffer.from('start\n'));
        const results = await Promise.all([store.append(job, 6, Buffer.from('first runner\n')), store.append(job, 6, Buffer.from('second\n'))]);
        const winners = results.filter((result) => 'size' in result);
        assert.equal(winners.length, 1);
        const content = (await text(await store.read(job)))?.toString();
        assert.ok(content === 'start\nfirst runner\n' || content === 'start\nsecond\n');
        assert.deepEqual(results.find((result) => 'conflict' in result), { conflict: Buffer.byteLength(content ?? '') });
      });

      it('keeps appends from separate instances byte-exact, and removes the trace', async () => {
        const job = jobIds[firstJob + 2];
        // Two instances: two coordinators on one database, or a restarted coordinator on one data directory.
        const secondDatabase = name === 'database chunks' && database.opened.dialect === 'postgres' ? openDatabase(database.url) : undefined;
        const first = create();
        const second = secondDatabase ? new SqlTraceStore(secondDatabase.db) : create();
        try {
          const expected: Buffer[] = [];
          let size = 0;
          for (let index = 0; index < 40; index++) {
            const part = randomBytes(1 + (index * 97) % 3000);
            const result = await (index % 2 === 0 ? first : second).append(job, size, part);
            assert.deepEqual(result, { size: size + part.length });
            size += part.length;
            expected.push(part);
          }
          assert.deepEqual(await text(await second.read(job)), Buffer.concat(expected));
          assert.equal(await first.checksum(job), checksumOf(Buffer.concat(expected)));
          await second.remove(job);
          assert.equal(await first.size(job), 0);
          assert.equal(await first.read(job), undefined);
          assert.deepEqual(await first.append(job, 0, Buffer.from('again')), { size: 5 });
        } finally {
          await secondDatabase?.close();
        }
      });
    });
  }
});
