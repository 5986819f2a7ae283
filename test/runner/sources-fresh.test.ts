/** get_sources into a new directory: the remote and fetch settings written without `git config` and `git remote add`, as those write them. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { getSources } from '../../src/runner/job/sources.ts';
import { JobTrace } from '../../src/runner/job/trace.ts';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], { cwd, encoding: 'utf8' }).trim();

describe('get_sources into a new directory', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'gantry-sources-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  it('fetches and checks out from a remote whose path needs quoting, with the settings git itself would write', async () => {
    // A remote path with a quote, a backslash, a `#` and a space: each needs quoting in .git/config.
    const remote = path.join(base, 'odd "name" \\ #1.git');
    const work = path.join(base, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    execFileSync('sh', ['-c', 'echo hello > file.txt'], { cwd: work });
    git(work, 'add', '-A');
    git(work, 'commit', '-qm', 'first');
    const sha = git(work, 'rev-parse', 'HEAD');
    execFileSync('git', ['clone', '-q', '--bare', work, remote]);

    const directory = path.join(base, 'build');
    let log = '';
    const trace = new JobTrace({ sink: (bytes) => void (log += bytes.toString('utf8')), maskedValues: [], limitBytes: 1 << 20, sections: false });
    await getSources({
      git: { repo_url: remote, ref: 'main', sha, before_sha: sha, ref_type: 'branch', refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 0 },
      strategy: 'fetch', checkout: true, cleanFlags: '-ffdx', fetchFlags: '--prune --quiet', submodules: 'none',
      remoteUrl: remote, directory, displayDirectory: directory, userAgent: 'test', trace, signal: new AbortController().signal,
    });
    assert.match(log, /Created fresh repository\./);
    assert.equal(readFileSync(path.join(directory, 'file.txt'), 'utf8'), 'hello\n');
    assert.equal(git(directory, 'rev-parse', 'HEAD'), sha);
    assert.equal(git(directory, 'config', 'remote.origin.url'), remote);
    assert.equal(git(directory, 'config', 'remote.origin.fetch'), '+refs/heads/*:refs/remotes/origin/*');
    assert.equal(git(directory, 'config', 'fetch.recurseSubmodules'), 'false');
    // What `git remote add` makes of the same URL reads back the same.
    const reference = path.join(base, 'reference');
    execFileSync('git', ['init', '-q', reference]);
    git(reference, 'remote', 'add', 'origin', remote);
    assert.equal(git(directory, 'config', '--get-regexp', '^remote\\.'), git(reference, 'config', '--get-regexp', '^remote\\.'));
  });
});
