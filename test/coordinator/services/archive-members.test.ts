import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ArchiveMembers } from '../../../src/coordinator/services/ci/pipelines/archive-members.ts';
import { GantryError } from '../../../src/shared/errors.ts';
import { silentLogger } from '../../../src/shared/logger.ts';
import { DEFAULT_ZIP_INDEX_LIMITS, type ZipMember } from '../../../src/storage/types-blobs.ts';
import type { ArtifactEntryRecord, JobArtifactRecord } from '../../../src/storage/types-ci-jobs.ts';

const ARCHIVE: JobArtifactRecord = {
  id: 1, job_id: 7, project_id: 3, file_type: 'archive', file_format: 'zip', file_name: 'artifacts.zip', size: 100, sha256: 'a'.repeat(64),
  path: 'artifacts/3/7/archive.zip', expire_at: null, created_at: '2024-01-01T00:00:00.000Z',
};

const MEMBER: ZipMember = { path: 'out.txt', kind: 'file', size: 3, compressedSize: 3, crc32: 1, mode: 0o100644, modifiedAt: null, headerOffset: 42, compression: 0 };

/** A legacy archive (its one member recorded without a location) whose central directory walk waits until `finish` or its signal aborts. */
function legacyArchive() {
  let rows: ArtifactEntryRecord[] = [{ path: 'out.txt', kind: 'file', size: 3, compressed_size: 3, crc32: 1, mode: 0o100644, modified_at: null, header_offset: null, compression: null }];
  const walks: AbortSignal[] = [];
  let finish: () => void = () => assert.fail('no walk started');
  const members = new ArchiveMembers({
    limits: DEFAULT_ZIP_INDEX_LIMITS,
    logger: silentLogger(),
    jobArtifacts: {
      findEntry: async (_id, path) => rows.find((row) => row.path === path),
      replaceEntries: async (_id, entries) => {
        rows = [...entries];
      },
    },
    artifactFiles: {
      listZipMembers: (_path, { signal }) => {
        walks.push(signal!);
        return new Promise<ZipMember[]>((resolve, reject) => {
          finish = () => resolve([MEMBER]);
          signal!.addEventListener('abort', () => reject(signal!.reason), { once: true });
        });
      },
      openZipMember: async () => assert.fail('not opened here'),
    },
  });
  return { members, walks, finish: () => finish(), rows: () => rows };
}

/** Lets the requests in flight reach their await. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ArchiveMembers: indexing an archive recorded without member locations', () => {
  it('walks the central directory once for concurrent requests and records the locations', async () => {
    const archive = legacyArchive();
    const first = archive.members.find(ARCHIVE, 'out.txt', new AbortController().signal);
    const second = archive.members.find(ARCHIVE, 'out.txt', new AbortController().signal);
    await settle();
    assert.equal(archive.walks.length, 1, 'one walk for both requests');
    archive.finish();
    for (const found of await Promise.all([first, second])) assert.equal(found?.header_offset, 42);
    assert.equal(archive.rows()[0]!.header_offset, 42, 'kept for later requests');
    assert.equal((await archive.members.find(ARCHIVE, 'out.txt'))?.header_offset, 42);
    assert.equal(archive.walks.length, 1, 'a later request is a look-up');
  });

  it('keeps walking while one requester is left, and stops the walk when the last one leaves', async () => {
    const archive = legacyArchive();
    const leaving = new AbortController();
    const staying = new AbortController();
    const left = archive.members.find(ARCHIVE, 'out.txt', leaving.signal);
    const stays = archive.members.find(ARCHIVE, 'out.txt', staying.signal);
    await settle();
    leaving.abort(new GantryError('GANTRY_E_CLIENT_GONE'));
    await assert.rejects(left, { code: 'GANTRY_E_CLIENT_GONE' });
    assert.equal(archive.walks[0]!.aborted, false, 'another request still waits for the walk');
    staying.abort(new GantryError('GANTRY_E_SHUTTING_DOWN'));
    await assert.rejects(stays, { code: 'GANTRY_E_SHUTTING_DOWN' });
    assert.equal(archive.walks[0]!.aborted, true, 'nobody waits: the walk stops');
    assert.equal(archive.rows()[0]!.header_offset, null, 'nothing recorded');

    const again = archive.members.find(ARCHIVE, 'out.txt', new AbortController().signal);
    await settle();
    assert.equal(archive.walks.length, 2, 'the next request walks again');
    archive.finish();
    assert.equal((await again)?.header_offset, 42);
  });
});
