/**
 * get_sources as gitlab-runner's shell integration tests describe it: the hooks skipped without
 * a repository, an unknown GIT_SUBMODULE_STRATEGY refused, GIT_SUBMODULE_DEPTH / _PATHS /
 * _UPDATE_FLAGS, a submodule an earlier job changed reset, a ref lock left by a stopped job, and
 * the worktree cleared before a second attempt.
 */
import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { JobPayload } from '../../src/protocol/job-payload.ts';
import { getSourcesAttempts } from '../../src/runner/job/prepare-sources.ts';
import { submoduleDepth } from '../../src/runner/job/sources.ts';
import { gitRepository, jobSettings, payload, variable, runShellJob } from './support.ts';

const hooks: JobPayload['hooks'] = [
  { name: 'pre_get_sources_script', script: ['echo pre-clone-hook'] },
  { name: 'post_get_sources_script', script: ['echo post-clone-hook'] },
];

describe('get_sources: strategies, hooks and submodules', () => {
  // The submodules are file:// repositories, which git refuses to clone unless allowed.
  const saved = { ...process.env };
  before(() => Object.assign(process.env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'protocol.file.allow', GIT_CONFIG_VALUE_0: 'always' }));
  after(() => {
    for (const key of ['GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_CONFIG_VALUE_0']) delete process.env[key];
    Object.assign(process.env, saved);
  });

  /** A project with submodules `sub` and `other`, each two commits deep. */
  async function withSubmodules() {
    const subs = await Promise.all(['sub', 'other'].map((name) => gitRepository({ [`${name}.txt`]: 'one\n' })));
    const git = (cwd: string, ...args: string[]) => execa('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'protocol.file.allow=always', ...args], { cwd });
    for (const sub of subs) {
      await writeFile(path.join(sub.work, 'second.txt'), 'two\n');
      await git(sub.work, 'add', '-A');
      await git(sub.work, 'commit', '-qm', 'second');
      await git(sub.work, 'push', '-q', sub.bare, 'main');
    }
    const project = await gitRepository({ 'README.md': 'hello\n' });
    await git(project.work, 'submodule', 'add', '-q', subs[0]!.url, 'sub');
    await git(project.work, 'submodule', 'add', '-q', subs[1]!.url, 'other');
    await git(project.work, 'commit', '-qm', 'submodules');
    await git(project.work, 'push', '-q', project.bare, 'main');
    const sha = (await git(project.work, 'rev-parse', 'HEAD')).stdout.trim();
    const gitInfo = { repo_url: project.url, ref: 'main', sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 50 };
    return { gitInfo, git };
  }

  it('runs neither get-sources hook with GIT_STRATEGY none or empty, and both with a repository', async () => {
    const settings = await jobSettings({ preGetSourcesScript: 'echo pre-clone-runner', postGetSourcesScript: 'echo post-clone-runner' });
    for (const strategy of ['none', 'empty']) {
      const { outcome, trace } = await runShellJob(payload({ hooks, variables: [variable('GIT_STRATEGY', strategy)] }), settings);
      assert.deepEqual(outcome, { state: 'success' });
      assert.ok(!/pre-clone|post-clone/.test(trace), trace);
    }
    const repo = await gitRepository({ 'README.md': 'hello\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const { trace } = await runShellJob(payload({ hooks, git_info: git, variables: [variable('GIT_STRATEGY', 'clone')] }), settings);
    // gitlab-runner's order: the runner's script, the job's hook; after the sources, the job's hook, the runner's script.
    const order = ['\npre-clone-runner\n', '\npre-clone-hook\n', 'Checking out', '\npost-clone-hook\n', '\npost-clone-runner\n'].map((text) => trace.indexOf(text));
    assert.ok(order.every((at, index) => at >= 0 && (index === 0 || at > order[index - 1]!)), trace);
  });

  it('refuses an unknown GIT_SUBMODULE_STRATEGY before anything of get_sources runs', async () => {
    const repo = await gitRepository({ 'README.md': 'hello\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const { outcome, trace } = await runShellJob(payload({ hooks, git_info: git, variables: [variable('GIT_STRATEGY', 'clone'), variable('GIT_SUBMODULE_STRATEGY', 'invalid')] }), await jobSettings());
    assert.equal(outcome.failureReason, 'runner_system_failure');
    assert.ok(trace.includes('ERROR: Job failed (system failure): unknown GIT_SUBMODULE_STRATEGY'), trace);
    assert.ok(!/pre-clone-hook|Fetching changes|submodules/.test(trace), trace);
    const none = await runShellJob(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('GIT_SUBMODULE_STRATEGY', 'invalid')] }), await jobSettings());
    assert.deepEqual(none.outcome, { state: 'success' }, 'without a repository the submodule strategy is not read');
  });

  it('updates submodules to GIT_SUBMODULE_DEPTH (default the fetch depth), only those of GIT_SUBMODULE_PATHS', async () => {
    const { gitInfo } = await withSubmodules();
    const settings = await jobSettings();
    const projectDir = path.join(settings.buildsDir, 'runnerto', '0', 'project-7');
    const variables = (...extra: Array<[string, string]>) => [variable('GIT_STRATEGY', 'clone'), variable('GIT_SUBMODULE_STRATEGY', 'normal'), ...extra.map(([key, value]) => variable(key, value))];

    const byDefault = await runShellJob(payload({ git_info: gitInfo, variables: variables() }), settings);
    assert.deepEqual(byDefault.outcome, { state: 'success' }, byDefault.trace);
    assert.ok(byDefault.trace.includes('Updating/initializing submodules with git depth set to 50...'), byDefault.trace);
    assert.ok(existsSync(path.join(projectDir, 'sub', 'second.txt')) && existsSync(path.join(projectDir, 'other', 'second.txt')));
    assert.ok(!existsSync(path.join(projectDir, '.git', 'modules', 'sub', 'shallow')), 'two commits are within a depth of 50');

    const shallow = await runShellJob(payload({ git_info: gitInfo, variables: variables(['GIT_SUBMODULE_DEPTH', '1'], ['GIT_SUBMODULE_PATHS', ':(exclude)other']) }), settings);
    assert.deepEqual(shallow.outcome, { state: 'success' }, shallow.trace);
    assert.ok(shallow.trace.includes('Updating/initializing submodules with git depth set to 1...'), shallow.trace);
    assert.ok(existsSync(path.join(projectDir, '.git', 'modules', 'sub', 'shallow')), 'the submodule was fetched shallow');
    assert.ok(!existsSync(path.join(projectDir, 'other', 'other.txt')), 'the excluded submodule was not checked out');

    const unlimited = await runShellJob(payload({ git_info: gitInfo, variables: variables(['GIT_SUBMODULE_DEPTH', '0'], ['GIT_SUBMODULE_UPDATE_FLAGS', '--jobs 2']) }), settings);
    assert.deepEqual(unlimited.outcome, { state: 'success' }, unlimited.trace);
    assert.ok(unlimited.trace.includes('Updating/initializing submodules...\u001b[0;m\n'), unlimited.trace);

    const spaced = await runShellJob(payload({ git_info: gitInfo, variables: variables(['GIT_SUBMODULE_PATHS', ':(exclude) other']) }), settings);
    assert.equal(spaced.outcome.failureReason, 'runner_system_failure');
    assert.ok(spaced.trace.includes("GIT_SUBMODULE_PATHS: invalid submodule pathspec ':(exclude) other'"), spaced.trace);
  });

  it('a fetch resets what an earlier job changed in a submodule and removes a ref lock it left', async () => {
    const { gitInfo, git } = await withSubmodules();
    const settings = await jobSettings();
    const projectDir = path.join(settings.buildsDir, 'runnerto', '0', 'project-7');
    const variables = [variable('GIT_STRATEGY', 'fetch'), variable('GIT_SUBMODULE_STRATEGY', 'recursive')];
    const first = await runShellJob(payload({ git_info: gitInfo, variables }), settings);
    assert.deepEqual(first.outcome, { state: 'success' }, first.trace);
    // A commit made in the submodule and recorded in the superproject's clone, then a change on top.
    await writeFile(path.join(projectDir, 'sub', 'sub.txt'), 'committed change\n');
    await git(path.join(projectDir, 'sub'), 'commit', '-qam', 'local');
    await git(projectDir, 'commit', '-qam', 'local submodule commit');
    await writeFile(path.join(projectDir, 'sub', 'sub.txt'), 'not committed change\n');
    await writeFile(path.join(projectDir, 'sub', 'untracked.txt'), 'junk\n');
    await mkdir(path.join(projectDir, '.git', 'refs', 'remotes', 'origin'), { recursive: true });
    await writeFile(path.join(projectDir, '.git', 'refs', 'remotes', 'origin', 'main.lock'), '');

    const second = await runShellJob(payload({ git_info: gitInfo, variables, steps: [{ name: 'script', script: ['cat sub/sub.txt'], timeout: 3600, when: 'on_success', allow_failure: false }] }), settings);
    assert.deepEqual(second.outcome, { state: 'success' }, second.trace);
    assert.ok(second.trace.includes('Updating/initializing submodules recursively with git depth set to 50...'), second.trace);
    assert.ok(second.trace.includes('$ cat sub/sub.txt\u001b[0;m\none\n'), second.trace);
    assert.ok(!existsSync(path.join(projectDir, 'sub', 'untracked.txt')));
    assert.ok(!existsSync(path.join(projectDir, '.git', 'refs', 'remotes', 'origin', 'main.lock')));
  });

  it('clears the worktree before the second GET_SOURCES_ATTEMPTS attempt, when a file in a submodule path breaks the update', async () => {
    const { gitInfo } = await withSubmodules();
    const settings = await jobSettings();
    const projectDir = path.join(settings.buildsDir, 'runnerto', '0', 'project-7');
    const first = await runShellJob(payload({ git_info: gitInfo, variables: [variable('GIT_STRATEGY', 'fetch')] }), settings);
    assert.deepEqual(first.outcome, { state: 'success' }, first.trace);
    // No `git clean` nor `submodule foreach` removes a file in a submodule that was never set up.
    await writeFile(path.join(projectDir, 'sub', 'test.txt'), 'content');
    const variables = [variable('GIT_STRATEGY', 'fetch'), variable('GIT_SUBMODULE_STRATEGY', 'recursive'), variable('GET_SOURCES_ATTEMPTS', '2')];
    const second = await runShellJob(payload({ git_info: gitInfo, variables }), settings);
    assert.deepEqual(second.outcome, { state: 'success' }, second.trace);
    assert.ok(second.trace.includes('Deleting tracked and untracked files...'), second.trace);
    assert.ok(existsSync(path.join(projectDir, 'sub', 'sub.txt')), 'the submodule is checked out');
    assert.ok(!existsSync(path.join(projectDir, 'sub', 'test.txt')));
  });

  it('reads GIT_CHECKOUT as Go ParseBool does: 0 and FALSE skip the checkout, a word it does not know checks out', async () => {
    const repo = await gitRepository({ 'README.md': 'hello\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    for (const [value, skipped] of [['0', true], ['FALSE', true], ['no', false], ['true', false]] as const) {
      const { outcome, trace } = await runShellJob(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone'), variable('GIT_CHECKOUT', value)] }), await jobSettings());
      assert.deepEqual(outcome, { state: 'success' }, trace);
      assert.equal(trace.includes('Skipping Git checkout'), skipped, value);
      assert.equal(trace.includes('Checking out '), !skipped, value);
    }
  });

  it('GIT_FETCH_EXTRA_FLAGS none fetches with no extra flags, as gitlab-runner reads it', async () => {
    const repo = await gitRepository({ 'README.md': 'hello\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 0 };
    const { outcome, trace } = await runShellJob(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone'), variable('GIT_FETCH_EXTRA_FLAGS', 'none')] }), await jobSettings());
    assert.deepEqual(outcome, { state: 'success' }, trace);
    assert.ok(trace.includes('[new branch]'), 'without --quiet, git names what it fetched');
  });

  it('reads GET_SOURCES_ATTEMPTS and GIT_SUBMODULE_DEPTH as Go Atoi does: a sign allowed, white space not', () => {
    assert.equal(getSourcesAttempts('+3'), 3);
    assert.equal(getSourcesAttempts('03'), 3);
    assert.equal(getSourcesAttempts(' 3'), 1);
    assert.equal(getSourcesAttempts('3 '), 1);
    assert.equal(submoduleDepth('+2', 50), 2);
    assert.equal(submoduleDepth(' 2', 50), 50);
    assert.equal(submoduleDepth('two', 50), 50);
  });
});
