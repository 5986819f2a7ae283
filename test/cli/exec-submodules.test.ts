/**
 * `runner exec` and submodules with relative URLs: each becomes a project beside the working
 * tree's in the local coordinator, so `GIT_SUBMODULE_STRATEGY` behaves as on the server.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { relativeProjectPath } from '../../src/exec/submodules.ts';
import { exec, git, workingTree, writeFiles } from './exec-helpers.ts';

const allowFile = ['-c', 'protocol.file.allow=always'];

describe('runner exec: submodules', () => {
  const deep = workingTree({ 'deep.txt': 'deep content\n' });
  const lib = workingTree({ 'lib.txt': 'lib content\n' });
  git(lib, ...allowFile, 'submodule', 'add', '-q', deep, 'deep');
  git(lib, 'config', '-f', '.gitmodules', 'submodule.deep.url', '../deep.git');
  git(lib, 'commit', '-qam', 'deep as a submodule');
  const tree = workingTree({
    '.gitlab-ci.yml': [
      'recursive:',
      '  variables: { GIT_SUBMODULE_STRATEGY: recursive }',
      '  script: [cat vendor/lib/lib.txt vendor/lib/deep/deep.txt]',
      'none:',
      '  script: [test -z "$(ls -A vendor/lib)" && echo "vendor/lib is empty"]',
      '',
    ].join('\n'),
  });
  git(tree, 'remote', 'add', 'origin', 'git@gitlab.example.com:platform/app.git');
  git(tree, ...allowFile, 'submodule', 'add', '-q', lib, 'vendor/lib');
  // The nested one checked out from where it is here (its recorded URL is relative).
  const checkout = path.join(tree, 'vendor/lib');
  git(checkout, 'submodule', 'init', '-q');
  git(checkout, 'config', 'submodule.deep.url', deep);
  git(checkout, ...allowFile, 'submodule', 'update', '-q');
  git(tree, 'config', '-f', '.gitmodules', 'submodule.vendor/lib.url', '../lib.git');
  git(tree, 'commit', '-qam', 'lib as a submodule');
  after(() => {
    for (const dir of [deep, lib, tree]) rmSync(dir, { recursive: true, force: true });
  });

  it('clones relative submodules from projects beside the project, at the commits recorded', async () => {
    const result = await exec(tree, {});
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^recursive +\| lib content$/m);
    assert.match(result.stdout, /^recursive +\| deep content$/m);
    assert.match(result.stdout, /^none +\| vendor\/lib is empty$/m);
  });

  it('takes the commit a submodule has checked out now, committed in the superproject or not', async () => {
    const checkout = path.join(tree, 'vendor/lib');
    writeFiles(checkout, { 'lib.txt': 'newer lib\n' });
    git(checkout, 'commit', '-qam', 'newer');
    const result = await exec(tree, { jobs: ['recursive'] });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^recursive +\| newer lib$/m);
  });

  it('resolves relative URLs as git does against the clone URL, and leaves others alone', () => {
    assert.deepEqual(relativeProjectPath('platform/app', '../lib.git'), ['platform', 'lib']);
    assert.deepEqual(relativeProjectPath('platform/sub/app', '../../tools/lib'), ['platform', 'tools', 'lib']);
    assert.deepEqual(relativeProjectPath('platform/app', './nested'), null, 'app.git/nested is no project path');
    assert.equal(relativeProjectPath('platform/app', '../../../x'), null);
    assert.equal(relativeProjectPath('platform/app', '../../x'), null, 'a project needs a namespace');
    assert.equal(relativeProjectPath('platform/app', 'https://example.com/x/y.git'), null);
    assert.equal(relativeProjectPath('platform/app', '../-bad'), null);
  });
});
