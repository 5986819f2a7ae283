/** `runner exec`'s local variables: `.gantry/variables.yml` and `--env-file`. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { parseEnvFile, parseVariablesFile } from '../../src/exec/local-variables.ts';
import { exec, git, workingTree, writeFiles } from './exec-helpers.ts';

describe('runner exec local variables', () => {
  const dir = workingTree({
    '.gitlab-ci.yml': 'job:\n  script:\n    - echo "protected=${ONLY_PROTECTED:-absent}"\n    - test ! -e .gantry && echo "no .gantry in the snapshot"\n',
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps .gantry/ out of git and the snapshot, and gives protected variables to protected refs only', async () => {
    writeFiles(dir, { '.gantry/variables.yml': 'ONLY_PROTECTED:\n  value: yes\n  protected: true\n' });
    const onMain = await exec(dir, {});
    assert.equal(onMain.code, 0, onMain.stderr);
    assert.match(onMain.stdout, /^job +\| protected=yes$/m);
    assert.match(onMain.stdout, /^job +\| no \.gantry in the snapshot$/m);
    assert.match(readFileSync(path.join(dir, '.gantry/.gitignore'), 'utf8'), /^\*$/m);
    assert.equal(git(dir, 'status', '--porcelain'), '');

    const onBranch = await exec(dir, { ref: 'feature/x' });
    assert.equal(onBranch.code, 0, onBranch.stderr);
    assert.match(onBranch.stdout, /^job +\| protected=absent$/m);

    const onTag = await exec(dir, { tag: 'v1.0' });
    assert.equal(onTag.code, 0, onTag.stderr);
    assert.match(onTag.stdout, /^job +\| protected=yes$/m);
  });

  it('refuses a masked value the server would refuse, naming the file and the key', async () => {
    writeFiles(dir, { '.gantry/variables.yml': 'SHORT:\n  value: abc\n  masked: true\n' });
    const result = await exec(dir, {});
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^runner exec: \.gantry\/variables\.yml: SHORT: value .+$/m);
    rmSync(path.join(dir, '.gantry/variables.yml'));
  });

  it("names the project after its origin remote's path (CI_PROJECT_PATH, _NAME, _NAMESPACE), else after the working tree", async () => {
    const tree = workingTree({ '.gitlab-ci.yml': 'job:\n  script:\n    - echo "project=$CI_PROJECT_PATH name=$CI_PROJECT_NAME namespace=$CI_PROJECT_NAMESPACE"\n' });
    try {
      const alone = await exec(tree, {});
      assert.equal(alone.code, 0, alone.stderr);
      assert.match(alone.stdout, new RegExp(`^job +\\| project=root/${path.basename(tree)} name=${path.basename(tree)} namespace=root$`, 'm'));
      git(tree, 'remote', 'add', 'upstream', 'https://example.com/other/thing.git');
      git(tree, 'remote', 'add', 'origin', 'git@gitlab.example.com:platform/tools/deploy-kit.git');
      const named = await exec(tree, {});
      assert.equal(named.code, 0, named.stderr);
      assert.match(named.stdout, /^job +\| project=platform\/tools\/deploy-kit name=deploy-kit namespace=platform\/tools$/m);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it("gives the jobs git's user.name and user.email as GITLAB_USER_NAME and GITLAB_USER_EMAIL", async () => {
    const tree = workingTree({ '.gitlab-ci.yml': 'job:\n  script:\n    - echo "user=$GITLAB_USER_NAME <$GITLAB_USER_EMAIL> login=$GITLAB_USER_LOGIN"\n' });
    try {
      git(tree, 'config', 'user.name', 'Ada Lovelace');
      git(tree, 'config', 'user.email', 'ada@example.org');
      const result = await exec(tree, {});
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^job +\| user=Ada Lovelace <ada@example\.org> login=root$/m);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  it('names the line of a bad --env-file and refuses a missing one', async () => {
    writeFiles(dir, { 'bad.env': 'GOOD=1\n\nthis is not a pair\n' });
    const bad = await exec(dir, { envFile: ['bad.env'] });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'runner exec: bad.env:3: expected KEY=VALUE\n');
    const missing = await exec(dir, { envFile: ['nowhere.env'] });
    assert.equal(missing.stderr, 'runner exec: --env-file nowhere.env: no such file\n');
    assert.ok(!existsSync(path.join(dir, '.gantry/artifacts')), 'nothing ran');
  });
});

describe('the local variables formats', () => {
  it('reads dotenv syntax', () => {
    const text = "A=1\nexport B = two \nC='single $quoted'\nD=\"line\\nbreak\" # comment\nE=\n# skipped\n";
    assert.deepEqual(parseEnvFile(text, 'x.env'), [
      { key: 'A', value: '1' },
      { key: 'B', value: 'two' },
      { key: 'C', value: 'single $quoted' },
      { key: 'D', value: 'line\nbreak' },
      { key: 'E', value: '' },
    ]);
    assert.throws(() => parseEnvFile('A=1\n1BAD=2\n', 'x.env'), /^ExecError: x\.env:2: "1BAD" is not a variable name/);
    assert.throws(() => parseEnvFile('A="open\n', 'x.env'), /x\.env:1: unterminated " quote/);
  });

  it('reads variables.yml and names what is wrong', () => {
    assert.deepEqual(parseVariablesFile('A: 1\nB: {value: x, masked: false, file: true, environment_scope: "review/*"}\n'), [
      { key: 'A', value: '1', masked: false, protected: false, file: false, environmentScope: '*' },
      { key: 'B', value: 'x', masked: false, protected: false, file: true, environmentScope: 'review/*' },
    ]);
    assert.throws(() => parseVariablesFile('A: {value: x, secret: true}\n'), /variables\.yml: A: unknown field secret/);
    assert.throws(() => parseVariablesFile('A: {value: x, masked: "yes"}\n'), /A: masked must be true or false/);
    assert.throws(() => parseVariablesFile('- a\n'), /expected a mapping/);
    assert.throws(() => parseVariablesFile('A: [unclosed\n'), /variables\.yml:\d+: /);
  });
});
