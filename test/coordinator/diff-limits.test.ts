import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { gitIn, importCommit, lines, repositoryDir } from './diff-fixtures.ts';
import { startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

type Entry = Record<string, unknown>;

/** The fields GitLab's Entities::Diff answers (generated_file aside), in its order. */
const DIFF_KEYS = ['diff', 'collapsed', 'too_large', 'new_path', 'old_path', 'a_mode', 'b_mode', 'new_file', 'renamed_file', 'deleted_file'];

/** 150-byte lines: 2,000 of them make a 300 KB patch of few lines (too large, not collapsed by the line totals). */
const wideLine = (index: number): string => `${String(index).padStart(6, '0')} ${'w'.repeat(142)}\n`;
/** 190-byte lines: 1,000 of them make a 191 KB patch, just under the patch limit. */
const bigLine = (index: number): string => `${String(index).padStart(6, '0')} ${'b'.repeat(182)}\n`;
/** 100-byte lines: 500 of them make a 50 KB patch, between a tenth of the patch limit and the limit. */
const mediumLine = (index: number): string => `${String(index).padStart(6, '0')} ${'m'.repeat(92)}\n`;

describe('diff limits (GitLab defaults)', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord & { full_path: string };
  let base: string;
  const commits: Record<string, string> = {};
  const repo = (suffix: string) => `/projects/${project.id}/repository/${suffix}`;
  const commitDiff = async (name: string, query = '') => {
    const response = await fx.gantry.api('GET', repo(`commits/${commits[name]}/diff${query}`));
    assert.equal(response.status, 200, response.text);
    return response;
  };
  const compare = async (name: string) => {
    const response = await fx.gantry.api('GET', repo(`compare?from=${base}&to=${commits[name]}`));
    assert.equal(response.status, 200, response.text);
    return response;
  };
  const byPath = (entries: Entry[]) => new Map(entries.map((entry) => [String(entry.new_path), entry]));

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('diffs', { withReadme: true });
    const gitDir = repositoryDir(fx.gantry, project.id);
    const main = gitIn(gitDir, ['rev-parse', 'refs/heads/main']);
    base = importCommit(gitDir, 'base', main, 'Base', [
      { path: 'a.txt', content: 'one\ntwo\nthree\n' },
      { path: 'gone.txt', content: 'bye\n' },
      { path: 'old name.txt', content: 'alpha\nbeta\ngamma\ndelta\nepsilon\n' },
      { path: 'bin.dat', content: Buffer.from([0, 1, 2, 3]) },
      { path: 'link', content: 'a.txt', mode: '120000' },
    ]);
    commits.small = importCommit(gitDir, 'small', base, 'Small', [
      { path: 'a.txt', content: 'one\n2\nthree\nfour' },
      { path: 'gone.txt', content: null },
      { path: 'old name.txt', content: null },
      { path: 'new name.txt', content: 'alpha\nbeta\ngamma\nDELTA\nepsilon\n' },
      { path: 'bin.dat', content: Buffer.from([0, 9, 9]) },
      { path: 'ünï.txt', content: 'grüße\n' },
      { path: 'link', content: 'now a file\n' },
    ]);
    commits.sizes = importCommit(gitDir, 'sizes', base, 'Sizes', [
      { path: 'wide.txt', content: lines(2000, wideLine) },
      { path: 'medium.txt', content: lines(500, mediumLine) },
      { path: 'small.txt', content: 'hello\n' },
    ]);
    commits.medium = importCommit(gitDir, 'medium', base, 'Medium alone', [{ path: 'medium.txt', content: lines(500, mediumLine) }]);
    commits.tall = importCommit(gitDir, 'tall', base, 'Tall', [
      { path: 'tall.txt', content: lines(6000, () => 'x\n') },
      { path: 'tiny.txt', content: 'tiny\n' },
    ]);
    commits.manyLines = importCommit(gitDir, 'many-lines', base, 'Many lines', Array.from({ length: 6 }, (_, index) => ({ path: `l${index + 1}.txt`, content: lines(10_000, () => 'yy\n') })));
    commits.manyBytes = importCommit(gitDir, 'many-bytes', base, 'Many bytes', Array.from({ length: 30 }, (_, index) => ({ path: `b${String(index + 1).padStart(2, '0')}.txt`, content: lines(1000, bigLine) })));
    commits.manyFiles = importCommit(gitDir, 'many-files', base, 'Many files', Array.from({ length: 1001 }, (_, index) => ({ path: `f${String(index).padStart(4, '0')}.txt`, content: `${index}\n` })));
  });

  after(async () => {
    await fx?.close();
  });

  it('answers a small diff byte for byte as git writes it, a type change as a deletion and an addition', async () => {
    const entry = (diff: string, paths: [string, string], modes: [string, string], kind: 'new' | 'renamed' | 'deleted' | null = null) => ({
      diff,
      collapsed: false,
      too_large: false,
      new_path: paths[1],
      old_path: paths[0],
      a_mode: modes[0],
      b_mode: modes[1],
      new_file: kind === 'new',
      renamed_file: kind === 'renamed',
      deleted_file: kind === 'deleted',
    });
    const expected = [
      entry('@@ -1,3 +1,4 @@\n one\n-two\n+2\n three\n+four\n\\ No newline at end of file\n', ['a.txt', 'a.txt'], ['100644', '100644']),
      entry('Binary files a/bin.dat and b/bin.dat differ\n', ['bin.dat', 'bin.dat'], ['100644', '100644']),
      entry('@@ -1 +0,0 @@\n-bye\n', ['gone.txt', 'gone.txt'], ['100644', '0'], 'deleted'),
      entry('@@ -1 +0,0 @@\n-a.txt\n\\ No newline at end of file\n', ['link', 'link'], ['120000', '0'], 'deleted'),
      entry('@@ -0,0 +1 @@\n+now a file\n', ['link', 'link'], ['0', '100644'], 'new'),
      entry('@@ -1,5 +1,5 @@\n alpha\n beta\n gamma\n-delta\n+DELTA\n epsilon\n', ['old name.txt', 'new name.txt'], ['100644', '100644'], 'renamed'),
      entry('@@ -0,0 +1 @@\n+grüße\n', ['ünï.txt', 'ünï.txt'], ['0', '100644'], 'new'),
    ];
    const response = await commitDiff('small');
    assert.equal(response.headers['content-type'], 'application/json');
    assert.equal(response.text, JSON.stringify(expected));
    assert.equal(response.headers['x-total'], '7');
    const compared = await compare('small');
    assert.deepEqual(compared.json.diffs, expected);
    assert.equal(compared.json.compare_timeout, false);
    assert.equal(compared.json.overflow, false);
  });

  it('cuts a file whose patch reaches 200 KB as too large, and collapses one over 20 KB in a comparison', async () => {
    const diffs = byPath((await commitDiff('sizes')).list);
    const wide = diffs.get('wide.txt')!;
    assert.deepEqual(Object.keys(wide), DIFF_KEYS);
    assert.deepEqual([wide.too_large, wide.collapsed, wide.diff], [true, false, '']);
    assert.equal(wide.new_file, true);
    // A commit's diff is expanded: a 50 KB patch is shown whole.
    const medium = diffs.get('medium.txt')!;
    assert.deepEqual([medium.too_large, medium.collapsed], [false, false]);
    assert.equal(medium.diff, `@@ -0,0 +1,500 @@\n${lines(500, (index) => `+${mediumLine(index)}`)}`);
    assert.equal(diffs.get('small.txt')?.diff, '@@ -0,0 +1 @@\n+hello\n');

    const compared = await compare('sizes');
    const shown = byPath(compared.json.diffs as Entry[]);
    assert.deepEqual([shown.get('wide.txt')?.too_large, shown.get('wide.txt')?.diff], [true, '']);
    assert.deepEqual([shown.get('medium.txt')?.collapsed, shown.get('medium.txt')?.too_large, shown.get('medium.txt')?.diff], [true, false, '']);
    assert.deepEqual([shown.get('small.txt')?.collapsed, shown.get('small.txt')?.diff], [false, '@@ -0,0 +1 @@\n+hello\n']);
    assert.equal(compared.json.overflow, false);
    // A comparison of a single file is always shown expanded.
    const alone = (await compare('medium')).json.diffs as Entry[];
    assert.deepEqual([alone[0]?.collapsed, String(alone[0]?.diff).length > 50_000], [false, true]);
  });

  it('collapses a file of more than 5,000 lines in a comparison, not in a commit diff', async () => {
    const tall = byPath((await compare('tall')).json.diffs as Entry[]);
    assert.deepEqual([tall.get('tall.txt')?.collapsed, tall.get('tall.txt')?.too_large, tall.get('tall.txt')?.diff], [true, false, '']);
    // Its lines left the totals when it was collapsed: the next file is shown.
    assert.equal(tall.get('tiny.txt')?.diff, '@@ -0,0 +1 @@\n+tiny\n');
    const full = byPath((await commitDiff('tall')).list);
    assert.equal(full.get('tall.txt')?.diff, `@@ -0,0 +1,6000 @@\n${'+x\n'.repeat(6000)}`);
  });

  it('ends a commit diff at the file that brings its lines to 50,000', async () => {
    const response = await commitDiff('manyLines', '?per_page=100');
    assert.deepEqual(response.list.map((entry) => entry.new_path), ['l1.txt', 'l2.txt', 'l3.txt', 'l4.txt']);
    assert.equal(response.headers['x-total'], '4');
    assert.ok(response.list.every((entry) => String(entry.diff).length === '@@ -0,0 +1,10000 @@\n'.length + 40_000));
    // A comparison collapses them instead (each is past the safe 5,000 lines), so it never overflows by lines.
    const compared = await compare('manyLines');
    assert.deepEqual((compared.json.diffs as Entry[]).map((entry) => [entry.new_path, entry.collapsed, entry.diff]), Array.from({ length: 6 }, (_, index) => [`l${index + 1}.txt`, true, '']));
    assert.equal(compared.json.overflow, false);
  });

  it('ends a commit diff at the file that brings its bytes to 5,000 KB', async () => {
    const response = await commitDiff('manyBytes', '?per_page=100');
    // 191,000 bytes of lines each: the 27th file brings the total to 5,157,000.
    assert.equal(response.headers['x-total'], '26');
    assert.deepEqual([response.list.length, response.list.at(-1)?.new_path, response.list.at(-1)?.too_large], [26, 'b26.txt', false]);
    assert.equal(String(response.list.at(-1)?.diff).length, '@@ -0,0 +1,1000 @@\n'.length + 191_000);
  });

  it('overflows past 1,000 files: the comparison says so, the commit diff lists 1,000', async () => {
    const compared = await compare('manyFiles');
    const diffs = compared.json.diffs as Entry[];
    assert.equal(diffs.length, 1000);
    assert.equal(compared.json.compare_timeout, true);
    assert.equal(compared.json.overflow, true);
    assert.equal(diffs[999]?.new_path, 'f0999.txt');
    // Past the safe 100 files, further files are collapsed.
    assert.deepEqual([diffs[99]?.collapsed, diffs[99]?.diff], [false, '@@ -0,0 +1 @@\n+99\n']);
    assert.deepEqual([diffs[100]?.collapsed, diffs[100]?.diff], [true, '']);

    const lastPage = await commitDiff('manyFiles', '?per_page=100&page=10');
    assert.equal(lastPage.headers['x-total'], '1000');
    assert.equal(lastPage.headers['x-total-pages'], '10');
    assert.deepEqual([lastPage.list.length, lastPage.list.at(-1)?.new_path, lastPage.list.at(-1)?.diff], [100, 'f0999.txt', '@@ -0,0 +1 @@\n+999\n']);
    assert.deepEqual((await commitDiff('manyFiles', '?per_page=100&page=11')).list, []);
  });
});
