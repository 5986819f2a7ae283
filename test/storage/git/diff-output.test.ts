import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PatchScanner, RawSectionReader, type RawDiffEntry, type ScannedPatch } from '../../../src/storage/git/diff-output.ts';

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

