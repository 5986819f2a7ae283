/** GIT_CLONE_PATH on the shell executor, as gitlab-runner's custom_build_dir: off unless the runner enables it, and inside the builds directory. */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { gitRepository, jobSettings, payload, variable, runShellJob } from './support.ts';

describe('GIT_CLONE_PATH (shell executor)', () => {
  it('is refused unless [runners.custom_build_dir] enables it; then the clone and the script are there, and a path outside the builds directory is refused', async () => {
    const repo = await gitRepository({ 'README.md': 'hello\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const job = (clonePath: string) => payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone'), variable('GIT_CLONE_PATH', clonePath)], steps: [{ name: 'script', script: ['echo "at $(pwd)"', 'cat README.md'], timeout: 3600, when: 'on_success', allow_failure: false }] });

    const refused = await runShellJob(job('$CI_BUILDS_DIR/go/src/app'), await jobSettings());
    assert.deepEqual(refused.outcome, { state: 'failed', failureReason: 'script_failure' });
    assert.ok(refused.trace.includes('ERROR: Job failed: setting GIT_CLONE_PATH is not allowed, enable `custom_build_dir` feature'), refused.trace);

    const settings = await jobSettings({ customBuildDir: true });
    const placed = await runShellJob(job('$CI_BUILDS_DIR/go/src/app'), settings);
    assert.deepEqual(placed.outcome, { state: 'success' }, placed.trace);
    const where = path.join(settings.buildsDir, 'go', 'src', 'app');
    assert.ok(placed.trace.includes(`\nat ${where}\n`) && placed.trace.includes('\nhello\n'), placed.trace);
    assert.ok(existsSync(path.join(where, '.git')));

    // gitlab-runner's own example: a clone per concurrent slot, `$CI_BUILDS_DIR/$CI_CONCURRENT_ID/...`.
    const bySlot = await runShellJob(job('$CI_BUILDS_DIR/$CI_CONCURRENT_ID/app'), settings, { concurrentId: 3 });
    assert.deepEqual(bySlot.outcome, { state: 'success' }, bySlot.trace);
    assert.ok(bySlot.trace.includes(`\nat ${path.join(settings.buildsDir, '3', 'app')}\n`), bySlot.trace);

    const outside = await runShellJob(job('/elsewhere/app'), settings);
    assert.deepEqual(outside.outcome, { state: 'failed', failureReason: 'script_failure' });
    assert.ok(outside.trace.includes(`ERROR: Job failed: the GIT_CLONE_PATH="/elsewhere/app" has to be within "${settings.buildsDir}"`), outside.trace);
  });
});
