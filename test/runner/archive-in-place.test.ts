/**
 * Collecting an artifacts or cache entry where the project is on this machine (listed in place)
 * gives what copying it out into a staging directory gives (the path of an environment that
 * is elsewhere, a container): the same entries, in the same order, with the same match report.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { packDirectory } from '../../src/executors/tar.ts';
import { collect } from '../../src/runner/job/archive/collect.ts';
import { matchReport, type Selection } from '../../src/runner/job/archive/select.ts';
import type { JobContext } from '../../src/runner/job/context.ts';

const base = mkdtempSync(path.join(tmpdir(), 'gantry-in-place-test-'));
after(() => rmSync(base, { recursive: true, force: true }));

const project = path.join(base, 'project');
const files: Record<string, string> = {
  'top.txt': 'top', 'build/app': 'app', 'build/a.tmp': 'tmp', 'build/inside/kept': 'kept', 'build/inside/deeper/x.o': 'x',
  'a/b/c/d.txt': 'd', 'a/b/e.log': 'e', 'nested/.git/config': 'not ours', 'docs/readme.md': 'readme', '.git/HEAD': 'ref: x',
};
for (const [name, content] of Object.entries(files)) {
  mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
  writeFileSync(path.join(project, name), content, { mode: name.endsWith('app') ? 0o755 : 0o644 });
}
mkdirSync(path.join(project, 'empty'));
symlinkSync('top.txt', path.join(project, 'build/link-to-file'));
symlinkSync('../docs', path.join(project, 'build/link-to-dir'));
symlinkSync('docs', path.join(project, 'docs-link'));
execFileSync('mkfifo', [path.join(project, 'build/pipe')]);

let workCount = 0;
function context(inPlace: boolean, projectDir = project): JobContext {
  const workDir = path.join(base, `work-${(workCount += 1)}`);
  mkdirSync(workDir);
  const environment = {
    info: { projectDir, hostProjectDir: inPlace ? projectDir : null },
    copyOut: async (directory: string) => ((await stat(directory).catch(() => null))?.isDirectory() ? packDirectory(directory) : null),
  };
  return { environment, workDir, sourcesDir: projectDir, variables: [] } as unknown as JobContext;
}

async function collected(selection: Selection, inPlace: boolean) {
  const { entries, select } = await collect(context(inPlace), selection, 'test');
  return {
    // A directory the staging copy made without copying it has the default mode; one listed in place keeps its own.
    entries: entries.map(({ name, type, mode, size }) => ({ name, type, size, ...(type === 'directory' ? {} : { mode }) })),
    report: matchReport(select, project),
  };
}

describe('collecting in place', () => {
  const selections: Array<[string, Selection]> = [
    ['a directory', { paths: ['build/'] }],
    ['a directory with exclusions', { paths: ['build/'], exclude: ['build/inside', 'build/*.tmp'] }],
    ['globs below a literal directory', { paths: ['a/**/*.txt', 'build/inside/**/*.o'] }],
    ['a file and a missing path', { paths: ['top.txt', 'missing/', 'a/b/e.log'] }],
    ['the whole project', { paths: ['.'] }],
    ['a glob at the top', { paths: ['*.txt', '**/kept'] }],
    ['a link to a directory named as the path', { paths: ['docs-link/'] }],
    ['an empty directory', { paths: ['empty/'] }],
  ];
  for (const [label, selection] of selections) {
    it(`lists what the staging copy holds: ${label}`, async () => {
      const staged = await collected(selection, false);
      const here = await collected(selection, true);
      assert.deepEqual(here, staged);
    });
  }

  it('zips nothing from .git, and from nested repositories what their files are', async () => {
    const { entries } = await collected({ paths: ['.'] }, true);
    assert.equal(entries.some(({ name }) => name === '.git' || name.startsWith('.git/')), false);
    assert.ok(entries.some(({ name }) => name === 'nested/.git/config'));
    assert.equal(entries.some(({ name }) => name === 'build/pipe'), false);
  });

  it('leaves out a selected name that is not UTF-8, and names it, escaped, instead of losing it silently', async () => {
    const odd = path.join(base, 'odd-names');
    const at = (...parts: Array<string | Buffer>): Buffer => Buffer.concat(parts.map((part) => Buffer.from(part)));
    mkdirSync(path.join(odd, 'out'), { recursive: true });
    writeFileSync(path.join(odd, 'out/plain.txt'), 'plain');
    writeFileSync(at(odd, '/out/caf', Buffer.from([0xe9]), '.txt'), 'latin-1 name');
    mkdirSync(at(odd, '/out/dir-', Buffer.from([0xff])));
    writeFileSync(at(odd, '/out/dir-', Buffer.from([0xff]), '/inside.txt'), 'inside');
    writeFileSync(at(odd, '/skip-', Buffer.from([0xfe]), '.log'), 'not selected');

    const { entries, unarchivable } = await collect(context(true, odd), { paths: ['out/', '*.txt'] }, 'test');
    assert.deepEqual(entries.map(({ name }) => name), ['out', 'out/plain.txt']);
    assert.deepEqual(unarchivable.sort(), ['out/caf\\xe9.txt', 'out/dir-\\xff']);

    // Copied out of an environment elsewhere (a container's tar keeps the bytes): the same entries, the names as the tar reader decodes them.
    const elsewhere = context(false, odd);
    (elsewhere.environment as { copyOut: (directory: string) => Promise<Readable> }).copyOut = async (directory) => spawn('tar', ['-cf', '-', '-C', directory, '.'], { stdio: ['ignore', 'pipe', 'inherit'] }).stdout;
    const copied = await collect(elsewhere, { paths: ['out/', '*.txt'] }, 'test');
    assert.deepEqual(copied.entries.map(({ name }) => name), ['out', 'out/plain.txt']);
    assert.deepEqual(copied.unarchivable.sort(), ['out/caf\uFFFD.txt', 'out/dir-\uFFFD']);
  });
});
