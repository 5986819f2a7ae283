/** What `runner exec` keeps across runs in `.gantry/`: the cache, and nothing that reaches git; artifacts elsewhere on demand. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { exec, git, workingTree } from './exec-helpers.ts';

const COUNTING = `
count:
  cache:
    key: counter
    paths: [counter/]
  script:
    - mkdir -p counter
    - echo run >> counter/runs
    - echo "runs:$(wc -l < counter/runs)"
`;

describe('runner exec keeps its cache across runs', () => {
  const dir = workingTree({ '.gitlab-ci.yml': COUNTING });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('finds the cache of the previous run, and .gantry/ stays out of git', async () => {
    const first = await exec(dir, {});
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^count +\| runs: *1$/m);
    const second = await exec(dir, {});
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, /^count +\| runs: *2$/m);
    assert.equal(git(dir, 'status', '--porcelain'), '');
  });
});

describe('runner exec --cache-dir', () => {
  const dir = workingTree({ '.gitlab-ci.yml': COUNTING, '.gitignore': 'caches/\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps the cache under the directory given, relative to the current directory, instead of .gantry/cache', async () => {
    const first = await exec(dir, { cacheDir: 'caches' });
    assert.equal(first.code, 0, first.stderr);
    assert.ok(!existsSync(path.join(dir, '.gantry/cache')), 'nothing in .gantry/cache');
    assert.ok(readdirSync(path.join(dir, 'caches'), { recursive: true }).some((name) => String(name).endsWith('cache.zip')), 'the archive is under caches/');
    const second = await exec(dir, { cacheDir: 'caches' });
    assert.match(second.stdout, /^count +\| runs: *2$/m);
    const elsewhere = await exec(dir, {});
    assert.match(elsewhere.stdout, /^count +\| runs: *1$/m, '.gantry/cache never had it');
  });
});

describe('runner exec --artifacts-dir', () => {
  const dir = workingTree({ '.gitlab-ci.yml': 'make:\n  script:\n    - mkdir -p out && echo made > out/file.txt\n  artifacts:\n    paths: [out/]\n', '.gitignore': 'elsewhere/\n' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('unpacks the artifacts under the directory given, relative to the current directory', async () => {
    const result = await exec(dir, { artifactsDir: 'elsewhere' });
    assert.equal(result.code, 0, result.stderr);
    const unpacked = path.join(dir, 'elsewhere', 'make');
    assert.equal(readFileSync(path.join(unpacked, 'out/file.txt'), 'utf8'), 'made\n');
    assert.ok(result.stdout.includes(`artifacts of make: ${unpacked}\n`), result.stdout);
    assert.ok(!existsSync(path.join(dir, '.gantry/artifacts')));
  });
});

describe('runner exec unpacks every job\'s artifacts', () => {
  const ci = ['one', 'two', 'three', 'a/x', 'a_x'].map((name) => `${name}:\n  script:\n    - mkdir -p out && echo ${name} > "out/$(echo ${name} | tr / _)-file.txt"\n  artifacts:\n    paths: [out/]\n`).join('');
  const dir = workingTree({ '.gitlab-ci.yml': ci });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('each into its own directory, and of two jobs named for the same one the later job\'s alone', async () => {
    const result = await exec(dir, { json: true });
    assert.equal(result.code, 0, result.stderr);
    const jobs = (JSON.parse(result.stdout) as { jobs: Array<{ id: number; name: string; artifacts: string | null }> }).jobs;
    for (const name of ['one', 'two', 'three']) {
      const unpacked = path.join(dir, '.gantry/artifacts', name);
      assert.equal(jobs.find((job) => job.name === name)?.artifacts, unpacked);
      assert.deepEqual(readdirSync(path.join(unpacked, 'out')), [`${name}-file.txt`]);
    }
    // `a/x` and `a_x` both unpack into `a_x/`: the job of the higher id (the later one) is what it holds.
    const later = jobs.filter((job) => job.name === 'a/x' || job.name === 'a_x').sort((left, right) => right.id - left.id)[0];
    assert.deepEqual(readdirSync(path.join(dir, '.gantry/artifacts/a_x/out')), [`${later?.name.replace('/', '_')}-file.txt`]);
  });
});
