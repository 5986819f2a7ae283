/**
 * The runner's zips (artifacts, caches): written from a staged directory (writeZip) and read
 * back into one (zipAsTar, then extractInto), members small and large: a small one is read,
 * inflated and written in one call each, a large one streamed, and either is held to the size
 * its entry declares.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { extractInto, SMALL_FILE } from '../../src/executors/tar.ts';
import { LoopTurns } from '../../src/shared/loop-turns.ts';
import { zipAsTar } from '../../src/runner/job/archive/read-zip.ts';
import { stagedEntries, writeZip } from '../../src/runner/job/archive/write.ts';
import { zipBytes } from '../helpers/runner-artifacts.ts';

const base = mkdtempSync(path.join(tmpdir(), 'gantry-zip-test-'));
after(() => rmSync(base, { recursive: true, force: true }));
let count = 0;
const fresh = (): string => {
  const directory = path.join(base, `d${(count += 1)}`);
  mkdirSync(directory);
  return directory;
};

async function unpack(zip: string): Promise<string> {
  const destination = fresh();
  await extractInto(await zipAsTar(zip), destination, undefined, { anySymlinkTarget: true });
  return destination;
}

/** Rewrites the uncompressed size of `name` in its local header and its central directory entry. */
function declareSize(bytes: Buffer, name: string, size: number): Buffer {
  const patched = Buffer.from(bytes);
  let found = 0;
  for (let index = patched.indexOf(name); index >= 0; index = patched.indexOf(name, index + 1)) {
    if (patched.readUInt32LE(index - 30) === 0x04034b50) patched.writeUInt32LE(size, index - 30 + 22);
    else if (patched.readUInt32LE(index - 46) === 0x02014b50) patched.writeUInt32LE(size, index - 46 + 24);
    else continue;
    found += 1;
  }
  assert.equal(found, 2, `${name}: its local header and its directory entry`);
  return patched;
}

describe('zips of many sizes, written and read back', () => {
  const sizes = [0, 1, 100, SMALL_FILE - 1, SMALL_FILE, SMALL_FILE + 1, 5 * SMALL_FILE + 3];

  for (const level of [undefined, 0, 1]) {
    it(`gives back every file byte for byte, with modes, links and empty directories (level ${level ?? 'default'})`, async () => {
      const staged = fresh();
      mkdirSync(path.join(staged, 'deep/empty'), { recursive: true });
      const contents = new Map<string, Buffer>();
      for (const size of sizes) {
        // Half random (incompressible), half repeated (compresses far below its size).
        const bytes = Buffer.concat([randomBytes(size >> 1), Buffer.alloc(size - (size >> 1), 'a')]);
        contents.set(`deep/f${size}.bin`, bytes);
        writeFileSync(path.join(staged, `deep/f${size}.bin`), bytes, { mode: size % 2 ? 0o755 : 0o644 });
      }
      symlinkSync('f1.bin', path.join(staged, 'deep/link'));
      const zip = path.join(fresh(), 'out.zip');
      await writeZip(await stagedEntries(staged), zip, level);
      const out = await unpack(zip);
      for (const [name, bytes] of contents) {
        assert.ok(readFileSync(path.join(out, name)).equals(bytes), name);
        assert.equal(statSync(path.join(out, name)).mode & 0o777, statSync(path.join(staged, name)).mode & 0o777, name);
      }
      assert.equal(readlinkSync(path.join(out, 'deep/link')), 'f1.bin');
      assert.ok(statSync(path.join(out, 'deep/empty')).isDirectory());
    });
  }

  it('gives the event loop its turns while it unpacks a zip, not only once it is done (a budget of 0 ms: at every read)', async () => {
    const zip = path.join(fresh(), 'turns.zip');
    const members = 300;
    writeFileSync(zip, await zipBytes(Object.fromEntries(Array.from({ length: members }, (_, index) => [`f${index}.txt`, `file ${index}`]))));
    const destination = fresh();
    let writtenAtTheTurn: number | null = null;
    setImmediate(() => (writtenAtTheTurn = readdirSync(destination).length));
    await extractInto(await zipAsTar(zip, new LoopTurns(0)), destination, undefined, { anySymlinkTarget: true });
    assert.equal(readdirSync(destination).length, members);
    assert.ok(writtenAtTheTurn !== null && writtenAtTheTurn < members, `the turn came after ${writtenAtTheTurn} of ${members} files`);
  });

  it('reads a zip whose members carry their sizes up front (no data descriptors), as other zippers write them', async () => {
    const zip = path.join(fresh(), 'up-front.zip');
    const large = 'x'.repeat(SMALL_FILE * 2);
    writeFileSync(zip, await zipBytes({ 'small.txt': 'hello', 'large.txt': large, 'link': { content: 'small.txt', mode: 0o120777 } }));
    const out = await unpack(zip);
    assert.equal(readFileSync(path.join(out, 'small.txt'), 'utf8'), 'hello');
    assert.equal(readFileSync(path.join(out, 'large.txt'), 'utf8'), large);
    assert.equal(readlinkSync(path.join(out, 'link')), 'small.txt');
  });

  it('refuses a member that holds more, or less, than its entry declares, small or large', async () => {
    const small = 'y'.repeat(1000);
    const large = 'z'.repeat(SMALL_FILE * 2);
    const bytes = await zipBytes({ 'small.txt': small, 'large.txt': large });
    const cases: Array<[string, number, RegExp]> = [
      ['small.txt', 999, /too many bytes/],
      ['small.txt', 1001, /not enough bytes/],
      ['large.txt', large.length - 1, /too many bytes/],
      ['large.txt', large.length + 1, /not enough bytes/],
    ];
    for (const [name, declared, error] of cases) {
      const zip = path.join(fresh(), 'lying.zip');
      writeFileSync(zip, declareSize(bytes, name, declared));
      await assert.rejects(unpack(zip), error, `${name} declared as ${declared} bytes`);
    }
  });

  it('refuses a small member whose name leaves the destination, and writes nothing outside', async () => {
    const root = fresh();
    const zip = path.join(root, 'slip.zip');
    writeFileSync(zip, await zipBytes({ 'ok.txt': 'fine', 'xx/evil.txt': 'bad' }, [['xx/evil.txt', '../evil.txt']]));
    // yauzl refuses the name before the entry reaches the unpacker.
    await assert.rejects(unpack(zip), /invalid relative path/);
    assert.throws(() => statSync(path.join(base, 'evil.txt')), /ENOENT/);
  });

  it('refuses a link whose target is longer than any system takes, without holding it', async () => {
    const zip = path.join(fresh(), 'long-link.zip');
    writeFileSync(zip, await zipBytes({ link: { content: 'a'.repeat(SMALL_FILE + 1), mode: 0o120777 } }));
    await assert.rejects(unpack(zip), /symlink target is too long/);
  });

  it('fails the archive, and only it, when a staged file is gone before it is zipped (small or large)', async () => {
    for (const size of [10, SMALL_FILE * 2]) {
      const staged = fresh();
      writeFileSync(path.join(staged, 'kept.txt'), 'kept');
      writeFileSync(path.join(staged, 'gone.bin'), Buffer.alloc(size));
      const entries = await stagedEntries(staged);
      rmSync(path.join(staged, 'gone.bin'));
      await assert.rejects(writeZip(entries, path.join(fresh(), 'out.zip')), /ENOENT/, `a file of ${size} bytes`);
    }
  });

  it('refuses a small member whose deflated data is corrupt', async () => {
    const bytes = await zipBytes({ 'data.txt': 'a'.repeat(5000) });
    const local = bytes.indexOf('data.txt') + 'data.txt'.length;
    // The deflated data begins right after the local header's name (yazl writes no extra field).
    const corrupt = Buffer.from(bytes);
    corrupt.fill(0xff, local, local + 4);
    const zip = path.join(fresh(), 'corrupt.zip');
    writeFileSync(zip, corrupt);
    await assert.rejects(unpack(zip));
  });
});
