/**
 * Submodules with absolute URLs on the job's own instance: fetched with the job token, as
 * gitlab-runner rewrites the instance's URL for `git submodule update`, and its SSH forms too
 * with GIT_SUBMODULE_FORCE_HTTPS. The instance is a smart-HTTP git server (git http-backend)
 * that answers only to the job token.
 */
import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { submoduleInsteadOf } from '../../src/runner/job/submodule-urls.ts';
import { gitRepository, jobSettings, payload, runShellJob, variable } from './support.ts';

/** A git server for the repositories under `root`, for `gitlab-ci-token:<token>` only. */
function gitServer(root: string, token: string): http.Server {
  const expected = `Basic ${Buffer.from(`gitlab-ci-token:${token}`).toString('base64')}`;
  return http.createServer((request, response) => {
    if (request.headers.authorization !== expected) {
      response.writeHead(401, { 'www-authenticate': 'Basic realm="GitLab"' }).end();
      return;
    }
    const url = new URL(request.url ?? '/', 'http://server');
    const backend = spawn('git', ['http-backend'], {
      env: { ...process.env, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', REQUEST_METHOD: request.method ?? 'GET', PATH_INFO: url.pathname, QUERY_STRING: url.search.slice(1), CONTENT_TYPE: request.headers['content-type'] ?? '', REMOTE_USER: 'gitlab-ci-token' },
    });
    request.pipe(backend.stdin);
    const chunks: Buffer[] = [];
    backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    backend.on('close', () => {
      const output = Buffer.concat(chunks);
      const split = output.indexOf('\r\n\r\n');
      const headers = output.subarray(0, split).toString().split('\r\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const);
      const status = Number(headers.find(([name]) => name.toLowerCase() === 'status')?.[1].split(' ')[0] ?? 200);
      response.writeHead(status, Object.fromEntries(headers.filter(([name]) => name.toLowerCase() !== 'status'))).end(output.subarray(split + 4));
    });
  });
}

describe('get_sources: submodules on the instance itself', () => {
  const token = 'jobtok-submodules-secret';
  let server: http.Server;
  let serverUrl: string;
  let sub: Awaited<ReturnType<typeof gitRepository>>;
  before(async () => {
    sub = await gitRepository({ 'lib.txt': 'from the submodule\n' });
    // gitRepository's bare repository is <root>/group/project.git: served as /group/project.git.
    server = gitServer(path.dirname(path.dirname(sub.bare)), token);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

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
