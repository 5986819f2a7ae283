import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchReport, selector } from '../../src/runner/job/archive/select.ts';

const entries: Array<[string, string]> = [
  ['build', 'directory'], ['build/app', 'file'], ['build/inside', 'directory'], ['build/inside/kept', 'file'],
  ['build/a.tmp', 'file'], ['top', 'file'], ['.git', 'directory'], ['.git/HEAD', 'file'],
];

function taken(paths: string[], exclude?: string[]): { names: string[]; report: string[] } {
  const select = selector({ paths, ...(exclude ? { exclude } : {}) }, new Set());
  const names = entries.filter(([name, type]) => select(name, type)).map(([name]) => name);
  return { names, report: matchReport(select, '/builds/p').map(({ warning, text }) => `${warning ? 'WARNING: ' : ''}${text}`) };
}

describe('artifacts and cache selection (gitlab-runner archiver)', () => {
  it('takes the whole project for . and ./, .git aside; .. takes nothing', () => {
    assert.deepEqual(taken(['.']).names, ['build', 'build/app', 'build/inside', 'build/inside/kept', 'build/a.tmp', 'top']);
    assert.deepEqual(taken(['./']).names, taken(['.']).names);
    assert.deepEqual(taken(['..']).names, []);
    assert.deepEqual(taken(['..']).report, ['WARNING: processPath: artifact path is not a subpath of project directory: ..']);
  });

  it('warns about a path that leads out of the project directory (or is empty) as gitlab-runner\'s archiver does, instead of looking for matches', () => {
    const outside = ['../elsewhere', '/etc/hostname', '/tmp/*.log', '/*.log', '../up/**/*.txt', 'build/../../x'];
    assert.deepEqual(taken(outside).report, outside.map((pattern) => `WARNING: processPath: artifact path is not a subpath of project directory: ${pattern}`));
    assert.deepEqual(taken(['']).report, ['WARNING: No matching files. Path is empty.']);
    // Inside after all: looked for, resolved as the archiver's filepath.Rel resolves it.
    const inside = taken(['build/../top', './/build//app', '*.none']);
    assert.deepEqual(inside.names, ['build/app', 'top']);
    assert.deepEqual(inside.report.map((line) => line.replace(/ Ensure.*/, '')), ['build/../top: found 1 matching artifact files and directories', './/build//app: found 1 matching artifact files and directories', 'WARNING: *.none: no matching files.']);
  });

  it('excludes each entry by its own path: a directory excluded keeps its files, and each rule counts what it kept out', () => {
    const { names, report } = taken(['build/'], ['build/inside', 'build/*.tmp']);
    assert.deepEqual(names, ['build', 'build/app', 'build/inside/kept']);
    assert.deepEqual(report, ['build/: found 3 matching artifact files and directories', 'build/inside: excluded 1 files', 'build/*.tmp: excluded 1 files']);
    assert.deepEqual(taken(['build/'], ['build/inside/**']).names, ['build', 'build/app', 'build/a.tmp']);
  });

  it('reports untracked files, and warns when none came', () => {
    const select = selector({ paths: [], untracked: true }, new Set(['top']));
    assert.equal(select('top', 'file'), false);
    assert.deepEqual(matchReport(select, '/b').map(({ text }) => text), ['untracked: no files']);
    assert.equal(select('build/app', 'file'), true);
    assert.deepEqual(matchReport(select, '/b'), [{ warning: false, text: 'untracked: found 1 files' }]);
  });

  it('counts an untracked file a path brought too, and an excluded entry once for each way it came, as gitlab-runner', () => {
    // gitlab-runner walks each path, then `git ls-files -o`: a file both bring is processed twice.
    const select = selector({ paths: ['build/', 'build/*.tmp'], exclude: ['build/a.tmp'], untracked: true }, new Set(['build/inside/kept']));
    const names = entries.filter(([name, type]) => select(name, type)).map(([name]) => name);
    assert.deepEqual(names, ['build', 'build/app', 'build/inside', 'build/inside/kept', 'top']);
    assert.deepEqual(matchReport(select, '/b').map(({ text }) => text), [
      'build/: found 4 matching artifact files and directories',
      'build/*.tmp: no matching files. Ensure that the artifact path is relative to the working directory (/b)',
      'untracked: found 2 files',
      'build/a.tmp: excluded 3 files',
    ]);
  });
});
