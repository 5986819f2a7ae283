/**
 * get_sources into a new directory: gitlab-runner's `git init` template, the remote written
 * without `git remote add` as it writes it, and a commit whose short history the alternates hold
 * fetched without its moot depth. Over HTTP, the job token goes with the fetch's first request.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { getSources, type ShortHistory, type SourcesRequest } from '../../src/runner/job/sources.ts';
import { JobTrace } from '../../src/runner/job/trace.ts';
import { startGitServer } from './git-http-server.ts';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], { cwd, encoding: 'utf8' }).trim();

/** A repository at `work` whose one commit holds `file.txt` with `text`, cloned bare to `bare`; the commit's SHA. */
function bareWithOneCommit(work: string, bare: string, text: string): string {
  execFileSync('git', ['init', '-q', '-b', 'main', work]);
  writeFileSync(path.join(work, 'file.txt'), text);
  git(work, 'add', '-A');
  git(work, 'commit', '-qm', 'first');
  execFileSync('git', ['clone', '-q', '--bare', work, bare]);
  return git(work, 'rev-parse', 'HEAD');
}

describe('get_sources into a new directory', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'gantry-sources-'));
  after(() => rmSync(base, { recursive: true, force: true }));

  it('fetches and checks out from a remote whose path needs quoting, with the settings git itself would write', async () => {
    // A remote path with a quote, a backslash, a `#` and a space: each needs quoting in .git/config.
    const remote = path.join(base, 'odd "name" \\ #1.git');
    const sha = bareWithOneCommit(path.join(base, 'work'), remote, 'hello\n');

    const directory = path.join(base, 'build');
    let log = '';
    const trace = new JobTrace({ sink: (bytes) => void (log += bytes.toString('utf8')), maskedValues: [], limitBytes: 1 << 20, sections: false });
    await getSources({
      git: { repo_url: remote, ref: 'main', sha, before_sha: sha, ref_type: 'branch', refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 0 },
      strategy: 'fetch', checkout: true, cleanFlags: '-ffdx', fetchFlags: '--prune --quiet', submodules: 'none',
      remoteUrl: remote, directory, templateDirectory: path.join(base, 'template'), displayDirectory: directory, userAgent: 'test', trace, signal: new AbortController().signal,
    });
    assert.match(log, /Created fresh repository\./);
    assert.equal(readFileSync(path.join(directory, 'file.txt'), 'utf8'), 'hello\n');
    assert.equal(git(directory, 'rev-parse', 'HEAD'), sha);
    assert.equal(git(directory, 'config', 'remote.origin.url'), remote);
    assert.equal(git(directory, 'config', 'remote.origin.fetch'), '+refs/heads/*:refs/remotes/origin/*');
    assert.equal(git(directory, 'config', 'fetch.recurseSubmodules'), 'false');
    // gitlab-runner's template: its settings, and none of git's sample hooks or `description`.
    assert.equal(git(directory, 'config', 'init.defaultBranch'), 'none');
    assert.equal(git(directory, 'config', 'credential.interactive'), 'never');
    assert.equal(git(directory, 'config', 'gc.autoDetach'), 'false');
    assert.equal(existsSync(path.join(directory, '.git', 'hooks')), false);
    assert.equal(existsSync(path.join(directory, '.git', 'description')), false);
    // What `git remote add` makes of the same URL reads back the same.
    const reference = path.join(base, 'reference');
    execFileSync('git', ['init', '-q', reference]);
    git(reference, 'remote', 'add', 'origin', remote);
    assert.equal(git(directory, 'config', '--get-regexp', '^remote\\.'), git(reference, 'config', '--get-regexp', '^remote\\.'));
  });

  it('fetches a commit whose history its alternates hold in no more commits than the depth without the depth: no negotiation, no pack', async () => {
    const work = path.join(base, 'snapshot-work');
    const remote = path.join(base, 'snapshot.git');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    execFileSync('sh', ['-c', 'echo one > file.txt'], { cwd: work });
    git(work, 'add', '-A');
    git(work, 'commit', '-qm', 'first');
    execFileSync('sh', ['-c', 'echo two > file.txt'], { cwd: work });
    git(work, 'commit', '-qam', 'second');
    // A snapshot as runner exec makes it of uncommitted changes: a commit on top of HEAD.
    execFileSync('sh', ['-c', 'echo three > file.txt && git add file.txt'], { cwd: work });
    const tree = git(work, 'write-tree');
    const sha = execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit-tree', tree, '-p', 'HEAD', '-m', 'snapshot'], { cwd: work, encoding: 'utf8' }).trim();
    execFileSync('git', ['init', '-q', '--bare', remote]);
    git(work, 'push', '-q', remote, `${sha}:refs/heads/main`);

    const fetchInto = async (name: string, shortHistories: ShortHistory[], depth = 50, alternateRefPrefixes: string[] = []): Promise<{ directory: string; commands: string }> => {
      const directory = path.join(base, name);
      const gitTrace = path.join(base, `${name}.trace`);
      const trace = new JobTrace({ sink: () => undefined, maskedValues: [], limitBytes: 1 << 20, sections: false });
      const request: SourcesRequest = {
        git: { repo_url: remote, ref: 'main', sha, before_sha: sha, ref_type: 'branch', refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth },
        strategy: 'fetch', checkout: true, cleanFlags: '-ffdx', fetchFlags: '--prune --quiet', submodules: 'none',
        remoteUrl: remote, directory, templateDirectory: path.join(base, `${name}-template`), alternates: [path.join(work, '.git', 'objects')], shortHistories, alternateRefPrefixes,
        displayDirectory: directory, userAgent: 'test', trace, signal: new AbortController().signal,
      };
      // git's trace names every process the fetch starts (the shell passes the environment on).
      process.env.GIT_TRACE = gitTrace;
      try {
        await getSources(request);
      } finally {
        delete process.env.GIT_TRACE;
      }
      return { directory, commands: readFileSync(gitTrace, 'utf8') };
    };

    const moot = await fetchInto('moot', [{ sha, commits: 3 }]);
    assert.equal(git(moot.directory, 'rev-parse', 'HEAD'), sha);
    assert.equal(git(moot.directory, 'rev-parse', 'refs/remotes/origin/main'), sha);
    assert.equal(git(moot.directory, 'rev-parse', '--is-shallow-repository'), 'false');
    assert.equal(git(moot.directory, 'rev-list', '--count', 'HEAD'), '3');
    assert.doesNotMatch(moot.commands, /pack-objects|--depth/);
    // Told nothing, the same fetch negotiates a shallow pack: the same repository, at a higher cost.
    const shallow = await fetchInto('shallow', []);
    assert.match(shallow.commands, /pack-objects/);
    assert.equal(git(shallow.directory, 'rev-parse', 'HEAD'), sha);
    assert.equal(git(shallow.directory, 'rev-parse', '--is-shallow-repository'), 'false');
    assert.equal(git(shallow.directory, 'for-each-ref'), git(moot.directory, 'for-each-ref'));
    // A depth that cuts the history is the job's, as on a server: a shallow clone of 2 commits.
    const cut = await fetchInto('cut', [{ sha, commits: 3 }], 2, ['refs/heads/main']);
    assert.match(cut.commands, /--depth 2/);
    // The alternate is asked for its branch only, not for every ref (each one a walk for the connectivity check).
    assert.match(cut.commands, /for-each-ref '--format=%\(objectname\)' -- refs\/heads\/main\n/);
    assert.match(shallow.commands, /for-each-ref '--format=%\(objectname\)'\n/);
    assert.equal(git(cut.directory, 'rev-parse', '--is-shallow-repository'), 'true');
    assert.equal(git(cut.directory, 'rev-list', '--count', 'HEAD'), '2');
  });

  it('sends the job token with the first request of the fetch over HTTP, not after a 401', async () => {
    const root = path.join(base, 'served');
    const sha = bareWithOneCommit(path.join(base, 'served-work'), path.join(root, 'group', 'project.git'), 'served\n');
    const server = await startGitServer(root, 'job-token');
    try {
      const directory = path.join(base, 'served-build');
      const remoteUrl = `${server.url.replace('://', '://gitlab-ci-token:job-token@')}/group/project.git`;
      const trace = new JobTrace({ sink: () => undefined, maskedValues: [], limitBytes: 1 << 20, sections: false });
      await getSources({
        git: { repo_url: remoteUrl, ref: 'main', sha, before_sha: sha, ref_type: 'branch', refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 0 },
        strategy: 'fetch', checkout: true, cleanFlags: '-ffdx', fetchFlags: '--prune --quiet', submodules: 'none',
        remoteUrl, directory, templateDirectory: path.join(base, 'served-template'), displayDirectory: directory, userAgent: 'test', trace, signal: new AbortController().signal,
      });
      assert.equal(readFileSync(path.join(directory, 'file.txt'), 'utf8'), 'served\n');
      assert.equal(server.refused(), 0, 'no request went without the token');
      // The header is the fetch's alone: the repository's configuration holds no copy of it.
      assert.doesNotMatch(readFileSync(path.join(directory, '.git', 'config'), 'utf8'), /extraHeader|Authorization/i);
    } finally {
      await server.close();
    }
  });
});
