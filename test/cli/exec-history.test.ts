/**
 * The commit `runner exec`'s jobs see: HEAD itself for a clean tree (or `--committed`), else
 * the uncommitted changes as a commit on top of HEAD; either way HEAD's history, cut by the
 * job's GIT_DEPTH as on a server, and the tags in it.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { exec, git, workingTree, writeFiles } from './exec-helpers.ts';

const CI = `job:
  script:
    - echo "sha=$CI_COMMIT_SHA title=$CI_COMMIT_TITLE"
    - echo "commits=$(git rev-list --count HEAD) shallow=$(git rev-parse --is-shallow-repository) parent=$(git rev-parse --verify -q HEAD~1 || echo none)"
    - cat notes.txt
    - echo "described=$(git describe --tags)"
shallow:
  variables:
    GIT_DEPTH: 1
  script:
    - echo "commits=$(git rev-list --count HEAD) shallow=$(git rev-parse --is-shallow-repository)"
`;

describe("runner exec's snapshot and the jobs' history", () => {
  const dir = workingTree({ '.gitlab-ci.yml': CI, 'notes.txt': 'one\n' });
  writeFiles(dir, { 'notes.txt': 'two\n' });
  git(dir, 'commit', '-qam', 'second');
  git(dir, 'tag', '-a', '-m', 'release one', 'v1.0');
  writeFiles(dir, { 'notes.txt': 'three\n' });
  git(dir, 'commit', '-qam', 'third commit');
  git(dir, 'tag', 'later', 'HEAD~2');
  const head = git(dir, 'rev-parse', 'HEAD').trim();
  const parent = git(dir, 'rev-parse', 'HEAD~1').trim();
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("runs a clean tree's HEAD itself, with its history", async () => {
    const result = await exec(dir, {});
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`^job +\\| sha=${head} title=third commit$`, 'm'));
    assert.match(result.stdout, new RegExp(`^job +\\| commits=3 shallow=false parent=${parent}$`, 'm'));
    assert.match(result.stdout, /^shallow +\| commits=1 shallow=true$/m);
    // Your tags are the local coordinator's too: a job's fetch follows those in its history.
    assert.match(result.stdout, new RegExp(`^job +\\| described=v1\\.0-1-g${head.slice(0, 7)}$`, 'm'));
  });

  it('runs uncommitted changes as a commit on top of HEAD; --committed runs HEAD', async () => {
    writeFiles(dir, { 'notes.txt': 'uncommitted\n' });
    try {
      const changed = await exec(dir, {});
      assert.equal(changed.code, 0, changed.stderr);
      const sha = /^job +\| sha=([0-9a-f]{40}) title=third commit$/m.exec(changed.stdout)?.[1];
      assert.ok(sha !== undefined && sha !== head, changed.stdout);
      assert.match(changed.stdout, new RegExp(`^job +\\| commits=4 shallow=false parent=${head}$`, 'm'));
      assert.match(changed.stdout, /^job +\| uncommitted$/m);
      const committed = await exec(dir, { committed: true });
      assert.equal(committed.code, 0, committed.stderr);
      assert.match(committed.stdout, new RegExp(`^job +\\| sha=${head} title=third commit$`, 'm'));
      assert.match(committed.stdout, /^job +\| three$/m);
    } finally {
      git(dir, 'checkout', '--', 'notes.txt');
    }
  });

  it('runs a shallow or a partial clone as a commit without a parent (a history the clone lacks is not one a job could fetch)', async () => {
    git(dir, 'config', 'uploadpack.allowFilter', 'true');
    for (const [name, how] of [['shallow', ['--depth', '1']], ['partial', ['--filter=blob:none']]] as const) {
      const clone = `${dir}-${name}`;
      git(dir, 'clone', '-q', ...how, `file://${dir}`, clone);
      try {
        const result = await exec(clone, { jobs: ['job'] });
        assert.equal(result.code, 0, `${name}: ${result.stderr}`);
        assert.match(result.stdout, /^job +\| commits=1 shallow=false parent=none$/m, name);
        assert.match(result.stdout, /^job +\| three$/m, name);
      } finally {
        rmSync(clone, { recursive: true, force: true });
      }
    }
  });
});
