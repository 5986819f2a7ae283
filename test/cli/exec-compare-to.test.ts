/** `runner exec` and `rules:changes:compare_to`: the user's own refs, merge bases with HEAD, the snapshot's uncommitted files. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { exec, git, workingTree, writeFiles } from './exec-helpers.ts';

const rule = (paths: string, ref: string): string => `  script: echo\n  rules:\n    - changes:\n        paths: [${paths}]\n        compare_to: ${ref}\n`;

const CI = [
  `code-since-main:\n${rule('src/**/*', 'main')}`,
  `docs-since-main:\n${rule('docs/**/*', 'refs/heads/main')}`,
  `wip-since-tag:\n${rule('notes/**/*', 'v0')}`,
  `wip-since-feature:\n${rule('notes/**/*', 'feature')}`,
  `code-since-feature:\n${rule('src/**/*', 'feature')}`,
].join('');

describe('runner exec: rules:changes:compare_to names the user\'s refs', () => {
  let dir: string;

  before(() => {
    dir = workingTree({ '.gitlab-ci.yml': CI, 'src/a.c': 'one\n' });
    git(dir, 'tag', 'v0');
    git(dir, 'checkout', '-q', '-b', 'feature');
    writeFiles(dir, { 'src/a.c': 'two\n' });
    git(dir, 'commit', '-qam', 'feature code');
    // main moves on after feature branched off: its docs are not feature's change.
    git(dir, 'checkout', '-q', 'main');
    writeFiles(dir, { 'docs/main.md': '# main\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'main docs');
    git(dir, 'checkout', '-q', 'feature');
    writeFiles(dir, { 'notes/wip.md': 'not committed\n' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const included = async (committed: boolean): Promise<string[]> => {
    const result = await exec(dir, { list: true, json: true, committed });
    assert.equal(result.code, 0, result.stderr);
    const { jobs } = JSON.parse(result.stdout) as { jobs: Array<{ name: string; when: string }> };
    return jobs.filter((job) => job.when !== 'never').map((job) => job.name).sort();
  };

  it('compares from the merge base with HEAD to the working tree, not from the snapshot\'s own branches', async () => {
    assert.deepEqual(await included(false), ['code-since-main', 'wip-since-feature', 'wip-since-tag']);
  });

  it('with --committed, compares to HEAD\'s tree', async () => {
    assert.deepEqual(await included(true), ['code-since-main']);
  });
});
