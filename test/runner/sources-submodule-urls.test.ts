/**
 * Submodules with absolute URLs on the job's own instance: fetched with the job token, as
 * gitlab-runner rewrites the instance's URL for `git submodule update`, and its SSH forms too
 * with GIT_SUBMODULE_FORCE_HTTPS. The instance is a smart-HTTP git server (git http-backend)
 * that answers only to the job token.
 */
import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { submoduleInsteadOf } from '../../src/runner/job/submodule-urls.ts';
import { startGitServer, type GitServer } from './git-http-server.ts';
import { gitRepository, jobSettings, payload, runShellJob, variable } from './support.ts';

describe('get_sources: submodules on the instance itself', () => {
  const token = 'jobtok-submodules-secret';
  let server: GitServer;
  let serverUrl: string;
  let sub: Awaited<ReturnType<typeof gitRepository>>;
  before(async () => {
    sub = await gitRepository({ 'lib.txt': 'from the submodule\n' });
    // gitRepository's bare repository is <root>/group/project.git: served as /group/project.git.
    server = await startGitServer(path.dirname(path.dirname(sub.bare)), token);
    serverUrl = server.url;
  });
  after(() => server.close());

  /** A project whose submodule `lib` has `url` in .gitmodules. */
  async function projectWithSubmodule(url: string) {
    const project = await gitRepository({ 'README.md': 'hello\n' });
    const git = (...args: string[]) => execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'protocol.file.allow=always', ...args], { cwd: project.work });
    await git('submodule', 'add', '-q', sub.url, 'lib');
    await git('config', '-f', '.gitmodules', 'submodule.lib.url', url);
    await git('commit', '-qam', 'submodule');
    await git('push', '-q', project.bare, 'main');
    const sha = (await git('rev-parse', 'HEAD')).stdout.trim();
    return { repo_url: project.url, ref: 'main', sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 0 };
  }

  const run = async (gitInfo: Awaited<ReturnType<typeof projectWithSubmodule>>, extra: Array<[string, string]>) => {
    const settings = await jobSettings();
    const variables = [variable('GIT_STRATEGY', 'clone'), variable('GIT_SUBMODULE_STRATEGY', 'normal'), variable('CI_SERVER_URL', serverUrl), variable('CI_SERVER_HOST', '127.0.0.1'), ...extra.map(([key, value]) => variable(key, value))];
    const result = await runShellJob(payload({ token, git_info: gitInfo, variables }), settings);
    return { ...result, checkedOut: existsSync(path.join(settings.buildsDir, 'runnerto', '0', 'project-7', 'lib', 'lib.txt')) };
  };

  it('fetches a submodule of the instance\'s own http URL with the job token', async () => {
    const { outcome, trace, checkedOut } = await run(await projectWithSubmodule(`${serverUrl}/group/project.git`), []);
    assert.deepEqual(outcome, { state: 'success' }, trace);
    assert.ok(checkedOut, trace);
    assert.ok(!trace.includes(token), 'the token stays out of the log');
  });

  it('with GIT_SUBMODULE_FORCE_HTTPS, fetches its git@host: URL over HTTP with the job token; without, not', async () => {
    const gitInfo = await projectWithSubmodule('git@127.0.0.1:group/project.git');
    const forced = await run(gitInfo, [['GIT_SUBMODULE_FORCE_HTTPS', 'true']]);
    assert.deepEqual(forced.outcome, { state: 'success' }, forced.trace);
    assert.ok(forced.checkedOut, forced.trace);
    const plain = await run(gitInfo, []);
    assert.equal(plain.outcome.state, 'failed', plain.trace);
  });

  it('rewrites the SSH forms gitlab-runner rewrites, a custom SSH port as ssh://git@host:port, and nothing for a base URL that is not http(s)', () => {
    const source = { cloneUrl: undefined, serverUrl: 'https://gitlab.example.com/', jobToken: 't0k', forceHttps: true, sshHost: 'gitlab.example.com', sshPort: undefined };
    assert.deepEqual(submoduleInsteadOf(source), [
      ['https://gitlab-ci-token:t0k@gitlab.example.com', 'https://gitlab.example.com'],
      ['https://gitlab-ci-token:t0k@gitlab.example.com/', 'git@gitlab.example.com:'],
      ['https://gitlab-ci-token:t0k@gitlab.example.com', 'ssh://git@gitlab.example.com'],
    ]);
    assert.deepEqual(submoduleInsteadOf({ ...source, sshPort: '2222', cloneUrl: 'https://clone.example.com/gitlab' }), [
      ['https://gitlab-ci-token:t0k@clone.example.com/gitlab', 'https://clone.example.com/gitlab'],
      ['https://gitlab-ci-token:t0k@clone.example.com/gitlab', 'ssh://git@gitlab.example.com:2222'],
    ]);
    assert.deepEqual(submoduleInsteadOf({ ...source, forceHttps: false }), [['https://gitlab-ci-token:t0k@gitlab.example.com', 'https://gitlab.example.com']]);
    assert.deepEqual(submoduleInsteadOf({ ...source, serverUrl: 'file:///srv/git' }), []);
  });
});
