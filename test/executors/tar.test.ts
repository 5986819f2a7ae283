import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import tar from 'tar-stream';
import { extractInto, packDirectory, SMALL_FILE, stripFirstComponent } from '../../src/executors/tar.ts';
import { LoopTurns } from '../../src/shared/loop-turns.ts';
import { runUnprivileged } from '../helpers/unprivileged.ts';

type Header = Parameters<tar.Pack['entry']>[0];

function tarOf(entries: Array<Header & { content?: string }>): Readable {
  const pack = tar.pack();
  for (const { content, ...header } of entries) {
    if (content === undefined) pack.entry(header);
    else pack.entry(header, content);
  }
  pack.finalize();
  return pack as unknown as Readable;
}

describe('extractInto (unpacking a tar stream into a directory)', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'gantry-tar-test-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  let count = 0;
  const fresh = (): string => {
    const directory = path.join(base, `d${(count += 1)}`);
    mkdirSync(directory);
    return directory;
  };

  it('writes directories and files with their modes and modification times', async () => {
    const root = fresh();
    const mtime = new Date('2020-01-02T03:04:05Z');
    await extractInto(tarOf([
      { name: 'out/', type: 'directory', mode: 0o750 },
      { name: 'out/run.sh', type: 'file', mode: 0o741, mtime, content: 'echo hi\n' },
      { name: 'deep/er/file.txt', type: 'file', mode: 0o600, content: 'x' },
    ]), root);
    assert.equal(readFileSync(path.join(root, 'out/run.sh'), 'utf8'), 'echo hi\n');
    assert.equal(statSync(path.join(root, 'out')).mode & 0o7777, 0o750);
    assert.equal(statSync(path.join(root, 'out/run.sh')).mode & 0o7777, 0o741);
    assert.equal(statSync(path.join(root, 'out/run.sh')).mtime.getTime(), mtime.getTime());
    assert.equal(readFileSync(path.join(root, 'deep/er/file.txt'), 'utf8'), 'x');
  });

  it('replaces what stands at an entry\'s place: a directory by a file, a file by a directory, a symlink by a file (not written through)', async () => {
    const root = fresh();
    const outside = fresh();
    mkdirSync(path.join(root, 'was-dir/inner'), { recursive: true });
    writeFileSync(path.join(root, 'was-dir/inner/file'), 'old');
    writeFileSync(path.join(root, 'was-file'), 'old');
    writeFileSync(path.join(outside, 'target'), 'outside');
    symlinkSync(path.join(outside, 'target'), path.join(root, 'was-link'));
    await extractInto(tarOf([
      { name: 'was-dir', type: 'file', content: 'now a file' },
      { name: 'was-file/', type: 'directory' },
      { name: 'was-link', type: 'file', content: 'replaced' },
    ]), root);
    assert.equal(readFileSync(path.join(root, 'was-dir'), 'utf8'), 'now a file');
    assert.ok(lstatSync(path.join(root, 'was-file')).isDirectory());
    assert.ok(lstatSync(path.join(root, 'was-link')).isFile());
    assert.equal(readFileSync(path.join(root, 'was-link'), 'utf8'), 'replaced');
    assert.equal(readFileSync(path.join(outside, 'target'), 'utf8'), 'outside');
  });

  it('rewrites a file already at an entry\'s place where it is (shorter too), but replaces one with a second name instead of writing through it', async () => {
    const root = fresh();
    const outside = fresh();
    writeFileSync(path.join(root, 'same'), 'old content, longer than the new');
    writeFileSync(path.join(outside, 'other-name'), 'shared bytes');
    linkSync(path.join(outside, 'other-name'), path.join(root, 'shared'));
    const before = statSync(path.join(root, 'same')).ino;
    const mtime = new Date('2019-09-09T09:09:09Z');
    await extractInto(tarOf([
      { name: 'same', type: 'file', mode: 0o600, mtime, content: 'new' },
      { name: 'shared', type: 'file', content: 'replaced' },
    ]), root);
    assert.equal(readFileSync(path.join(root, 'same'), 'utf8'), 'new');
    assert.equal(statSync(path.join(root, 'same')).ino, before);
    assert.equal(statSync(path.join(root, 'same')).mode & 0o7777, 0o600);
    assert.equal(statSync(path.join(root, 'same')).mtime.getTime(), mtime.getTime());
    assert.equal(readFileSync(path.join(root, 'shared'), 'utf8'), 'replaced');
    assert.equal(readFileSync(path.join(outside, 'other-name'), 'utf8'), 'shared bytes');
  });

  it('replaces a file already there that this user may not write (a user other than root)', async () => {
    const open = mkdtempSync(path.join(tmpdir(), 'gantry-tar-unprivileged-'));
    try {
      chmodSync(open, 0o777);
      writeFileSync(path.join(open, 'readonly.txt'), 'root\'s', { mode: 0o444 });
      const archive = path.join(open, 'one.tar');
      const chunks: Buffer[] = [];
      for await (const chunk of tarOf([{ name: 'readonly.txt', type: 'file', mode: 0o644, content: 'rewritten' }])) chunks.push(chunk as Buffer);
      writeFileSync(archive, Buffer.concat(chunks));
      const module = path.resolve(import.meta.dirname, `../../src/executors/tar${path.extname(import.meta.filename)}`);
      const run = runUnprivileged(module, `const { createReadStream } = await import('node:fs');\nawait m.extractInto(createReadStream(${JSON.stringify(archive)}), ${JSON.stringify(open)});`);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(path.join(open, 'readonly.txt'), 'utf8'), 'rewritten');
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });

  it('refuses a link leaving the destination while a packed directory streams in, and the pack it stops raises nothing unhandled', async () => {
    const source = fresh();
    // As an artifact's `out/` was: the refused link first, more links and directories behind it.
    symlinkSync('/etc/passwd', path.join(source, 'abs-link'));
    symlinkSync('missing', path.join(source, 'dangling'));
    mkdirSync(path.join(source, 'empty'));
    symlinkSync('sub/file.txt', path.join(source, 'link'));
    mkdirSync(path.join(source, 'sub'));
    writeFileSync(path.join(source, 'sub', 'file.txt'), 'data');
    await assert.rejects(extractInto(packDirectory(source), fresh()), /the symlink target "\/etc\/passwd" leaves the destination/);
    // An 'error' event nobody listens to would end the process here, after the rejection.
    await new Promise((resolve) => setTimeout(resolve, 50));
  });

  it('writes a link leaving the destination as a link when asked (a job\'s own files), but nothing through it', async () => {
    const root = fresh();
    const outside = fresh();
    await extractInto(tarOf([
      { name: 'venv/bin/python', type: 'symlink', linkname: '/usr/bin/python3' },
      { name: 'escape', type: 'symlink', linkname: outside },
    ]), root, undefined, { anySymlinkTarget: true });
    assert.equal(readlinkSync(path.join(root, 'venv/bin/python')), '/usr/bin/python3');
    await assert.rejects(extractInto(tarOf([{ name: 'escape/file.txt', type: 'file', content: 'x' }]), root, undefined, { anySymlinkTarget: true }), /symlink that leaves the destination/);
    assert.deepEqual(readdirSync(outside), []);
  });

  it('refuses a file under a parent directory that is a symlink leaving the destination', async () => {
    const root = fresh();
    const outside = fresh();
    symlinkSync(outside, path.join(root, 'escape'));
    await assert.rejects(extractInto(tarOf([{ name: 'escape/file.txt', type: 'file', content: 'x' }]), root), /symlink that leaves the destination/);
    assert.throws(() => statSync(path.join(outside, 'file.txt')), /ENOENT/);
  });

  it('makes no directory through a link leaving the destination, nor through a dangling one', async () => {
    const root = fresh();
    const outside = fresh();
    symlinkSync(outside, path.join(root, 'escape'));
    symlinkSync(path.join(outside, 'missing'), path.join(root, 'dangling'));
    await assert.rejects(extractInto(tarOf([{ name: 'escape/deeper/file.txt', type: 'file', content: 'x' }]), root), /symlink that leaves the destination/);
    await assert.rejects(extractInto(tarOf([{ name: 'dangling/file.txt', type: 'file', content: 'x' }]), root), /symlink that leaves the destination/);
    assert.deepEqual(readdirSync(outside), []);
    // A link inside the destination is a way in like any directory.
    mkdirSync(path.join(root, 'real'));
    symlinkSync('real', path.join(root, 'alias'));
    await extractInto(tarOf([{ name: 'alias/sub/file.txt', type: 'file', content: 'in' }]), root);
    assert.equal(readFileSync(path.join(root, 'real/sub/file.txt'), 'utf8'), 'in');
  });

  it('packs and unpacks files on either side of the size read and written in one call, byte for byte, with their modes and times', async () => {
    const source = fresh();
    const sizes = [0, 1, SMALL_FILE - 1, SMALL_FILE, SMALL_FILE + 1, 3 * SMALL_FILE + 17];
    const mtime = new Date('2021-05-06T07:08:09Z');
    const contents = new Map(sizes.map((size) => [`f${size}.bin`, randomBytes(size)]));
    for (const [name, bytes] of contents) {
      writeFileSync(path.join(source, name), bytes, { mode: 0o640 });
      utimesSync(path.join(source, name), mtime, mtime);
    }
    const destination = fresh();
    await extractInto(packDirectory(source), destination);
    assert.deepEqual(readdirSync(destination).sort(), [...contents.keys()].sort());
    for (const [name, bytes] of contents) {
      assert.ok(readFileSync(path.join(destination, name)).equals(bytes), name);
      assert.equal(statSync(path.join(destination, name)).mode & 0o7777, 0o640, name);
      assert.equal(statSync(path.join(destination, name)).mtime.getTime(), mtime.getTime(), name);
    }
  });

  it('gives the event loop its turns while it packs and unpacks (a budget of 0 ms: at every entry)', async () => {
    const source = fresh();
    for (let index = 0; index < 20; index++) writeFileSync(path.join(source, `f${index}`), 'x');
    const order: string[] = [];
    setImmediate(() => order.push('a turn while packing'));
    const chunks: Buffer[] = [];
    for await (const chunk of packDirectory(source, { turns: new LoopTurns(0) })) chunks.push(chunk as Buffer);
    order.push('packed');
    const archive = Buffer.concat(chunks);
    setImmediate(() => order.push('a turn while unpacking'));
    await extractInto(Readable.from([archive]), fresh(), undefined, { turns: new LoopTurns(0) });
    order.push('unpacked');
    assert.deepEqual(order, ['a turn while packing', 'packed', 'a turn while unpacking', 'unpacked']);
  });

  it('leaves no file descriptor open when the archive is cut short inside a file', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of tarOf([{ name: 'cut.txt', type: 'file', content: 'x'.repeat(5000) }])) chunks.push(chunk as Buffer);
    const whole = Buffer.concat(chunks);
    const openBefore = readdirSync('/proc/self/fd').length;
    for (let attempt = 0; attempt < 5; attempt++) {
      await assert.rejects(extractInto(Readable.from([whole.subarray(0, 512 + 2000)]), fresh()));
    }
    assert.equal(readdirSync('/proc/self/fd').length, openBefore);
  });

  it('keeps hard links inside the destination', async () => {
    const root = fresh();
    await extractInto(tarOf([
      { name: 'a.txt', type: 'file', content: 'shared' },
      { name: 'b.txt', type: 'link', linkname: 'a.txt' },
    ]), root);
    assert.equal(statSync(path.join(root, 'b.txt')).ino, statSync(path.join(root, 'a.txt')).ino);
    await assert.rejects(extractInto(tarOf([{ name: 'c.txt', type: 'link', linkname: '../outside.txt' }]), root), /hard link target leaves the destination/);
  });

  it('unpacks a read-only directory (`chmod -R a-w`) for a user other than root: its mode is set once its entries are in', async () => {
    const open = mkdtempSync(path.join(tmpdir(), 'gantry-tar-unprivileged-'));
    try {
      chmodSync(open, 0o777);
      const archive = path.join(open, 'readonly.tar');
      const chunks: Buffer[] = [];
      for await (const chunk of tarOf([
        { name: 'ro/', type: 'directory', mode: 0o555 },
        { name: 'ro/sub/', type: 'directory', mode: 0o555 },
        { name: 'ro/sub/file.txt', type: 'file', mode: 0o444, content: 'hello' },
      ])) chunks.push(chunk as Buffer);
      writeFileSync(archive, Buffer.concat(chunks));
      const destination = path.join(open, 'out');
      const module = path.resolve(import.meta.dirname, `../../src/executors/tar${path.extname(import.meta.filename)}`);
      const run = runUnprivileged(module, `const { createReadStream } = await import('node:fs');\nawait m.extractInto(createReadStream(${JSON.stringify(archive)}), ${JSON.stringify(destination)});`);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(readFileSync(path.join(destination, 'ro/sub/file.txt'), 'utf8'), 'hello');
      assert.equal(statSync(path.join(destination, 'ro')).mode & 0o7777, 0o555);
      assert.equal(statSync(path.join(destination, 'ro/sub')).mode & 0o7777, 0o555);
    } finally {
      rmSync(open, { recursive: true, force: true });
    }
  });
});

describe('stripFirstComponent (a container\'s archive of a directory, as its contents)', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'gantry-strip-test-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  it('strips the directory from names a PAX record carries (long, not ASCII) and from hard link targets, not from symlink targets', async () => {
    const pack = tar.pack();
    const long = `${'d'.repeat(120)}/file.txt`;
    const entries: Array<[Parameters<tar.Pack['entry']>[0], string?]> = [
      [{ name: 'out/', type: 'directory', mode: 0o755 }],
      [{ name: 'out/plain.txt', mode: 0o644 }, 'plain'],
      // As Docker's archive writes them: the whole path in a PAX record.
      [{ name: 'out/café ☕.txt', mode: 0o644, pax: { path: 'out/café ☕.txt', mtime: '1700000000.5' } }, 'unicode'],
      [{ name: `out/${long}`, mode: 0o644, pax: { path: `out/${long}` } }, 'long'],
      [{ name: 'out/hard', type: 'link', linkname: 'out/plain.txt', pax: { path: 'out/hard', linkpath: 'out/plain.txt' } }],
      [{ name: 'out/soft→', type: 'symlink', linkname: 'café ☕.txt', pax: { path: 'out/soft→', linkpath: 'café ☕.txt' } }],
    ];
    for (const [header, body] of entries) pack.entry(header, body ?? '');
    pack.finalize();
    const into = path.join(base, 'stripped-pax');
    await extractInto(stripFirstComponent(pack as unknown as Readable), into);
    assert.deepEqual(readdirSync(into).sort(), ['café ☕.txt', 'd'.repeat(120), 'hard', 'plain.txt', 'soft→'].sort());
    assert.equal(readFileSync(path.join(into, 'café ☕.txt'), 'utf8'), 'unicode');
    assert.equal(readFileSync(path.join(into, long), 'utf8'), 'long');
    assert.equal(statSync(path.join(into, 'hard')).ino, statSync(path.join(into, 'plain.txt')).ino);
    assert.equal(readlinkSync(path.join(into, 'soft→')), 'café ☕.txt');
  });
});
