import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../../src/shared/logger.ts';
import { openDiff } from '../../../src/storage/git/diff.ts';
import { DIFF_LIMITS, type DiffLimits } from '../../../src/storage/git/diff-limits.ts';
import { DiffLimiter } from '../../../src/storage/git/diff-limiter.ts';
import { PatchScanner, RawSectionReader, type RawDiffEntry, type ScannedPatch } from '../../../src/storage/git/diff-output.ts';
import type { RepositoryAccess } from '../../../src/storage/git/reader.ts';
import { GitWorkQueue } from '../../../src/storage/git/work-queue.ts';
import { ANN, git, gitFixture, importCommits, type GitFixture } from './fixture.ts';

const ZERO = '0'.repeat(7);
const LONG = `+${'long line '.repeat(4000)}\n`;

/** `git diff --raw -p -z` output of five files, written out by hand: a rename, a type change, a binary file, a mode change and a new file. */
const OUTPUT = Buffer.concat([
  Buffer.from(`:100644 100644 1111111 2222222 R087\0old name.txt\0new name.txt\0`),
  Buffer.from(`:120000 100644 3333333 4444444 T\0link\0`),
  Buffer.from(`:100644 100644 5555555 6666666 M\0bin.dat\0`),
  Buffer.from(`:100644 100755 7777777 7777777 M\0run.sh\0`),
  Buffer.from(`:000000 100644 ${ZERO} 8888888 A\0ünï.txt\0\0`),
  Buffer.from(
    [
      'diff --git a/old name.txt b/new name.txt\nsimilarity index 87%\nrename from old name.txt\nrename to new name.txt\nindex 1111111..2222222 100644\n--- a/old name.txt\n+++ b/new name.txt\n',
      '@@ -1,2 +1,2 @@\n same\n-old\n+new\n',
      'diff --git a/link b/link\ndeleted file mode 120000\nindex 3333333..0000000\n--- a/link\n+++ /dev/null\n@@ -1 +0,0 @@\n-target\n\\ No newline at end of file\n',
      'diff --git a/link b/link\nnew file mode 100644\nindex 0000000..4444444\n--- /dev/null\n+++ b/link\n@@ -0,0 +1 @@\n+now a file\n',
      'diff --git a/bin.dat b/bin.dat\nindex 5555555..6666666 100644\nBinary files a/bin.dat and b/bin.dat differ\n',
      'diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n',
      `diff --git a/ünï.txt b/ünï.txt\nnew file mode 100644\nindex 0000000..8888888\n--- /dev/null\n+++ b/ünï.txt\n@@ -0,0 +1,3 @@\n+grüße\n${LONG}@@ -10 +12 @@\n+x`,
    ].join(''),
  ),
]);

interface Parsed {
  entries: RawDiffEntry[];
  patches: Array<Omit<ScannedPatch, 'body'> & { body: string | null }>;
}

/** Feeds OUTPUT in pieces of `size` bytes, as git's pipe would. */
function parse(output: Buffer, size: number, keepBytes = 1024 * 1024): Parsed {
  const entries: RawDiffEntry[] = [];
  const raw = new RawSectionReader((entry) => entries.push(entry));
  const scanner = new PatchScanner(keepBytes);
  const patches: ScannedPatch[] = [];
  let inPatches = false;
  for (let offset = 0; offset < output.length; offset += size) {
    let chunk = output.subarray(offset, offset + size);
    if (!inPatches) {
      const start = raw.push(chunk);
      if (start === null) continue;
      inPatches = true;
      chunk = chunk.subarray(start);
    }
    patches.push(...scanner.push(chunk));
  }
  patches.push(...scanner.finish());
  return { entries, patches: patches.map((patch) => ({ ...patch, body: patch.body === null ? null : patch.body.toString('utf8') })) };
}

describe('git diff output readers', () => {
  it('read raw records and patches, a type change split in two', () => {
    const { entries, patches } = parse(OUTPUT, OUTPUT.length);
    assert.deepEqual(entries, [
      { oldMode: '100644', newMode: '100644', status: 'R', oldPath: 'old name.txt', newPath: 'new name.txt' },
      { oldMode: '120000', newMode: '0', status: 'D', oldPath: 'link', newPath: 'link' },
      { oldMode: '0', newMode: '100644', status: 'A', oldPath: 'link', newPath: 'link' },
      { oldMode: '100644', newMode: '100644', status: 'M', oldPath: 'bin.dat', newPath: 'bin.dat' },
      { oldMode: '100644', newMode: '100755', status: 'M', oldPath: 'run.sh', newPath: 'run.sh' },
      { oldMode: '000000', newMode: '100644', status: 'A', oldPath: 'ünï.txt', newPath: 'ünï.txt' },
    ]);
    /** A patch's expected reading: its hunk header lines are counted in its bytes but not in its content. */
    const expected = (body: string) => {
      const content = body.split(/(?<=\n)/).filter((line) => line !== '' && !line.startsWith('@@'));
      return { body, patchBytes: Buffer.byteLength(body), contentLines: content.length, contentBytes: Buffer.byteLength(content.join('')) };
    };
    assert.deepEqual(patches, [
      expected('@@ -1,2 +1,2 @@\n same\n-old\n+new\n'),
      expected('@@ -1 +0,0 @@\n-target\n\\ No newline at end of file\n'),
      expected('@@ -0,0 +1 @@\n+now a file\n'),
      expected('Binary files a/bin.dat and b/bin.dat differ\n'),
      { body: '', patchBytes: 0, contentLines: 0, contentBytes: 0 },
      expected(`@@ -0,0 +1,3 @@\n+grüße\n${LONG}@@ -10 +12 @@\n+x`),
    ]);
    assert.deepEqual(patches.map((patch) => patch.contentLines), [3, 2, 1, 1, 0, 3]);
  });

  it('read the same whatever the chunks git writes', () => {
    const whole = parse(OUTPUT, OUTPUT.length);
    for (const size of [1, 2, 3, 5, 7, 11, 15, 16, 17, 31, 64, 1000, 4096]) {
      assert.deepEqual(parse(OUTPUT, size), whole, `chunks of ${size} bytes`);
    }
  });

  it('keep no text of a patch past the kept size, only its counts', () => {
    for (const size of [3, 17, 4096, OUTPUT.length]) {
      const { patches } = parse(OUTPUT, size, 1000);
      assert.equal(patches[5]?.body, null);
      assert.equal(patches[5]?.contentLines, 3);
      assert.equal(patches[0]?.body, '@@ -1,2 +1,2 @@\n same\n-old\n+new\n');
    }
  });

  it('refuse output that is no diff', () => {
    assert.throws(() => new RawSectionReader(() => undefined).push(Buffer.from('oops\0')), /unexpected output/);
    assert.throws(() => new PatchScanner(10).push(Buffer.from('+a line before any file\n')), /unexpected output/);
  });
});

describe('GitLab diff limits per file', () => {
  const entry: RawDiffEntry = { oldMode: '100644', newMode: '100644', status: 'M', oldPath: 'f', newPath: 'f' };
  const patch = (lines: number, bytesPerLine = 2): ScannedPatch => {
    const body = Buffer.from(`@@ -1 +1,${lines} @@\n${'+\n'.padEnd(bytesPerLine, 'x').repeat(lines)}`);
    return { body, patchBytes: body.length, contentLines: lines, contentBytes: lines * bytesPerLine };
  };
  const limits: DiffLimits = { ...DIFF_LIMITS, maxFiles: 4, maxLines: 100, maxBytes: 1000, safeMaxFiles: 2, safeMaxLines: 10, safeMaxBytes: 100, maxPatchBytes: 300, collapseBytes: 30 };
  const flags = (file: ReturnType<DiffLimiter['admit']>) => (file === null ? 'overflow' : file.too_large ? 'too_large' : file.collapsed ? 'collapsed' : 'shown');

  it('expanded: cut only at the patch limit, stop at the totals', () => {
    const limiter = new DiffLimiter(limits, { expanded: true, files: 9 });
    assert.deepEqual([patch(40), patch(200), patch(40), patch(20)].map((one) => flags(limiter.admit(entry, one))), ['shown', 'too_large', 'shown', 'overflow']);
    const lines = new DiffLimiter(limits, { expanded: true, files: 9 });
    assert.deepEqual([patch(60), patch(40)].map((one) => flags(lines.admit(entry, one))), ['shown', 'overflow']);
  });

  it('not expanded: collapse past the safe totals and over the collapse size, unless the diff has one file', () => {
    const limiter = new DiffLimiter(limits, { expanded: false, files: 9 });
    assert.deepEqual([patch(3), patch(12), patch(3, 12), patch(1)].map((one) => flags(limiter.admit(entry, one))), ['shown', 'collapsed', 'collapsed', 'collapsed']);
    const alone = new DiffLimiter(limits, { expanded: false, files: 1 });
    const file = alone.admit(entry, patch(5, 8));
    assert.deepEqual([flags(file), file?.diff.length], ['shown', 54]);
    assert.equal(flags(new DiffLimiter(limits, { expanded: false, files: 2 }).admit(entry, patch(5, 8))), 'collapsed');
    const many = new DiffLimiter({ ...limits, safeMaxFiles: 9 }, { expanded: false, files: 9 });
    assert.deepEqual([patch(1), patch(1), patch(1), patch(1), patch(1)].map((one) => flags(many.admit(entry, one))), ['shown', 'shown', 'shown', 'shown', 'overflow']);
  });
});

describe('a diff read from git under limits', () => {
  let fixture: GitFixture;
  let gitDir: string;
  let work: GitWorkQueue;
  let access: RepositoryAccess;
  let from: string;
  let to: string;

  before(async () => {
    fixture = await gitFixture();
    await fixture.manager.create(1, { initializeWithReadme: false, defaultBranch: 'main', projectName: 'Limits', author: ANN });
    gitDir = fixture.manager.open(1).path;
    const files = (content: (index: number) => string) => Object.fromEntries(Array.from({ length: 4 }, (_, index) => [`f${index}.txt`, content(index)]));
    await importCommits(gitDir, 'main', [
      { message: 'Small\n', time: 1_700_000_000, files: files((index) => `${index}\n`) },
      { message: 'Large\n', time: 1_700_000_100, files: files((index) => `${index}\n${'+'.repeat(99)}\n`.repeat(1000)) },
    ]);
    [from, to] = (await git(gitDir, ['rev-parse', 'main~1', 'main'])).trim().split('\n') as [string, string];
    work = new GitWorkQueue({ slots: 1 });
    access = { gitDir, work, logger: silentLogger(), pool: null as unknown as RepositoryAccess['pool'] };
  });

  after(async () => fixture.cleanup());

  const read = async (limits: DiffLimits) => {
    const diffs = await openDiff(access, from, to, { expanded: true, slot: await work.acquire({ key: 'test' }), limits });
    const files: string[] = [];
    for await (const file of diffs) files.push(`${file.new_path}${file.too_large ? ' too large' : ''}`);
    return { files, overflow: diffs.overflow };
  };

  it('stops reading git past the byte ceiling, as an overflow, and frees its slot', async () => {
    // Each file's patch is about 100 KB; every one is read through, none is kept.
    const tight = { ...DIFF_LIMITS, maxPatchBytes: 1000, maxScannedBytes: 250_000 };
    assert.deepEqual(await read(tight), { files: ['f0.txt too large', 'f1.txt too large'], overflow: true });
    await waitForIdle(work);
    assert.deepEqual(await read({ ...tight, maxScannedBytes: DIFF_LIMITS.maxScannedBytes }), { files: ['f0.txt too large', 'f1.txt too large', 'f2.txt too large', 'f3.txt too large'], overflow: false });
  });

  it('frees its slot when closed unread', async () => {
    const diffs = await openDiff(access, from, to, { expanded: true, slot: await work.acquire({ key: 'test' }) });
    assert.equal(work.running, 1);
    diffs.close();
    await waitForIdle(work);
  });
});

/** Waits (bounded) for every slot to be released: git has gone. */
async function waitForIdle(work: GitWorkQueue): Promise<void> {
  for (let attempt = 0; work.running > 0; attempt += 1) {
    if (attempt > 200) throw new Error(`a slot is still held after 10 s (${work.running} running)`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
