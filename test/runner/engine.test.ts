import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import yauzl from 'yauzl';
import { ShellExecutor } from '../../src/executors/shell/shell-executor.ts';
import type { Dependency, JobPayload } from '../../src/protocol/job-payload.ts';
import type { JobSettings } from '../../src/runner/job/context.ts';
import { runJob } from '../../src/runner/job/engine.ts';
import { gitRepository, jobSettings, payload, RecordingSession, runnerIdentity, stableTrace, variable } from './support.ts';

const E = '\x1b';

async function run(job: JobPayload, settings?: JobSettings, session = new RecordingSession(), signal?: AbortSignal) {
  const resolved = settings ?? (await jobSettings());
  const outcome = await runJob({ payload: job, executor: new ShellExecutor({ buildsDir: resolved.buildsDir }), session, runner: runnerIdentity, settings: resolved, signal });
  return { outcome, session, trace: stableTrace(session.trace), settings: resolved };
}

const script = (...lines: string[]) => [{ name: 'script' as const, script: lines, timeout: 3600, when: 'on_success' as const, allow_failure: false }];
const afterScript = (...lines: string[]) => ({ name: 'after_script' as const, script: lines, timeout: 3600, when: 'always' as const, allow_failure: true });

async function unzip(file: string): Promise<Record<string, string>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => yauzl.open(file, { lazyEntries: false }, (error, opened) => (error ? reject(error) : resolve(opened))));
  const out: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    let pending = 0;
    let ended = false;
    const done = () => ended && pending === 0 && resolve();
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) {
        out[entry.fileName] = '<dir>';
        return;
      }
      pending++;
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          out[entry.fileName] = Buffer.concat(chunks).toString('utf8');
          pending--;
          done();
        });
      });
    });
    zip.on('end', () => {
      ended = true;
      done();
    });
    zip.on('error', reject);
  });
  return out;
}

describe('job engine (shell executor)', () => {
  it('writes the trace GitLab shows, byte for byte: header, sections, echoed commands, success', async () => {
    const { outcome, trace } = await run(payload({ steps: script('echo hello') }));
    assert.deepEqual(outcome, { state: 'success' });
    const expected =
      `${E}[0KRunning with gantry-runner 0.1.0 (test)\n${E}[0;m` +
      `${E}[0K  on test-runner runnerto\n${E}[0;m` +
      `section_start:T:prepare_executor\r${E}[0K${E}[0K${E}[36;1mPreparing the "shell" executor${E}[0;m\n${E}[0;m` +
      `${E}[0KUsing Shell executor...\n${E}[0;m` +
      `section_end:T:prepare_executor\r${E}[0K` +
      `section_start:T:prepare_script\r${E}[0K${E}[0K${E}[36;1mPreparing environment${E}[0;m\n${E}[0;m` +
      `Running on ${os.hostname()}...\n` +
      `section_end:T:prepare_script\r${E}[0K` +
      `section_start:T:get_sources\r${E}[0K${E}[0K${E}[36;1mGetting source from Git repository${E}[0;m\n${E}[0;m` +
      `${E}[32;1mSkipping Git repository setup${E}[0;m\n` +
      `section_end:T:get_sources\r${E}[0K` +
      `section_start:T:step_script\r${E}[0K${E}[0K${E}[36;1mExecuting "step_script" stage of the job script${E}[0;m\n${E}[0;m` +
      `${E}[32;1m$ echo hello${E}[0;m\nhello\n` +
      `section_end:T:step_script\r${E}[0K` +
      `section_start:T:cleanup_file_variables\r${E}[0K${E}[0K${E}[36;1mCleaning up file based variables${E}[0;m\n${E}[0;m` +
      `section_end:T:cleanup_file_variables\r${E}[0K` +
      `${E}[32;1mJob succeeded\n${E}[0;m`;
    assert.equal(trace, expected);
  });

  it('prints no section markers when the payload lacks features.trace_sections', async () => {
    const { trace } = await run(payload({ features: { trace_sections: false } }));
    assert.ok(!trace.includes('section_start'));
    assert.ok(trace.includes(`${E}[36;1mExecuting "step_script" stage of the job script`));
  });

  it('fails with script_failure and the exit code at the first failing command; after_script runs with CI_JOB_STATUS=failed', async () => {
    const { outcome, trace } = await run(payload({ steps: [...script('echo one', 'exit 3', 'echo never'), afterScript('echo after $CI_JOB_STATUS')] }));
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'script_failure', exitCode: 3 });
    assert.ok(!trace.includes('\nnever\n'));
    assert.ok(trace.includes(`section_start:T:after_script\r${E}[0K${E}[0K${E}[36;1mRunning after_script${E}[0;m\n${E}[0;m${E}[32;1mRunning after script...${E}[0;m\n${E}[32;1m$ echo after $CI_JOB_STATUS${E}[0;m\nafter failed\n`));
    assert.ok(trace.endsWith(`${E}[31;1mERROR: Job failed: exit status 3\n${E}[0;m`));
  });

  it('a failing command inside a pipe fails the step (pipefail), and a failing after_script does not fail the job', async () => {
    const failedPipe = await run(payload({ steps: script('false | cat') }));
    assert.equal(failedPipe.outcome.failureReason, 'script_failure');
    const afterFails = await run(payload({ steps: [...script('true'), afterScript('exit 7')] }));
    assert.deepEqual(afterFails.outcome, { state: 'success' });
    assert.ok(afterFails.trace.includes('WARNING: after_script failed, but job will continue unaffected: exit status 7'));
  });

  it('masks masked values, also split across writes and when one value is a prefix of another', async () => {
    const job = payload({
      variables: [
        variable('GIT_STRATEGY', 'none'),
        variable('SHORT', 'sekret', { masked: true, public: false }),
        variable('LONG', 'sekret-and-more', { masked: true, public: false }),
      ],
      steps: script('echo "a $SHORT b"', 'echo "c $LONG d"', 'printf "sek"; sleep 0.3; printf "ret-and-more\\n"', 'printf "sekr"; sleep 0.3; printf "et!\\n"'),
    });
    const { trace, session } = await run(job);
    assert.ok(!trace.includes('sekret'), trace);
    assert.ok(trace.includes('a [MASKED] b\n'));
    assert.ok(trace.includes('c [MASKED] d\n'));
    assert.ok(trace.includes('\n[MASKED]\n'));
    assert.ok(trace.includes('\n[MASKED]!\n'));
    // The echoed command line is not the secret: `$ echo "a $SHORT b"` stays.
    assert.ok(trace.includes('$ echo "a $SHORT b"'));
    assert.ok(session.chunks.length > 3);
  });

  it('cuts the log at output_limit with GitLab exact message, and the job goes on', async () => {
    const job = payload({ steps: script('for i in $(seq 1 2000); do echo line-$i; done', 'touch done-marker') });
    const { outcome, session, settings } = await run(job, await jobSettings({ outputLimit: 2000 }));
    assert.equal(outcome.state, 'success');
    const bytes = Buffer.concat(session.chunks);
    const message = `\n${E}[33;1mJob's log exceeded limit of 2000 bytes.\nJob execution will continue but no more output will be collected.${E}[0;m\n`;
    assert.equal(bytes.length, 2000 + Buffer.byteLength(message));
    assert.ok(bytes.toString().endsWith(message));
    await stat(path.join(settings.buildsDir, 'runnerto', '0', 'project-7', 'done-marker'));
  });

  it('is killed at a cancel, long before its script would end, and reports job_canceled; after_script does not run', async () => {
    const session = new RecordingSession();
    const started = Date.now();
    setTimeout(() => session.cancel(), 500);
    const { outcome, trace } = await run(payload({ steps: [...script('sleep 60'), afterScript('echo after-ran')] }), undefined, session);
    // Half the sleep: a killed job, whatever the machine's load (the kill's speed is no test's business).
    assert.ok(session.finishedAt - started - 500 < 30_000, `reported ${session.finishedAt - started - 500} ms after the cancel`);
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'job_canceled' });
    assert.ok(!trace.includes('after-ran'));
    assert.ok(trace.includes('ERROR: Job failed: canceled'));
  });

  it('times out after runner_info.timeout with job_execution_timeout', async () => {
    const job = payload({ runner_info: { timeout: 1, runner_session_url: null }, steps: script('sleep 60') });
    const started = Date.now();
    const { outcome, trace } = await run(job);
    assert.ok(Date.now() - started < 30_000, 'ended by the timeout, long before the sleep would end');
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'job_execution_timeout' });
    assert.ok(trace.includes('ERROR: Job failed: execution took longer than 1s seconds'));
  });

  it('a runner shutdown aborts the job as runner_system_failure', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort('terminated'), 300);
    const { outcome, trace } = await run(payload({ steps: script('sleep 20') }), undefined, new RecordingSession(), controller.signal);
    assert.deepEqual(outcome, { state: 'failed', failureReason: 'runner_system_failure' });
    assert.ok(trace.includes('ERROR: Job failed (system failure): aborted: terminated'));
  });

  it('exports variables in order, expanded (raw ones not), with runner variables and file variables', async () => {
    const job = payload({
      variables: [
        variable('GIT_STRATEGY', 'none'),
        variable('BASE', 'base'),
        variable('DERIVED', '$BASE-${BASE}-$$'),
        variable('RAW', '$BASE', { raw: true }),
        variable('QUOTED', `it's "quoted" \\ $(not run)`),
        variable('MY_FILE', 'file-content\nline2', { file: true, public: false }),
      ],
      steps: script('echo "$DERIVED|$RAW|$QUOTED"', 'cat "$MY_FILE"; echo', 'echo $CI_PROJECT_DIR $CI_SERVER $CI_JOB_STATUS $CI_SHARED_ENVIRONMENT $CI_RUNNER_SHORT_TOKEN $CI_CONCURRENT_ID'),
    });
    const { trace, settings } = await run(job, await jobSettings({ environment: ['FROM_CONFIG=yes'] }));
    const projectDir = path.join(settings.buildsDir, 'runnerto', '0', 'project-7');
    assert.ok(trace.includes(`\nbase-base-$|$BASE|it's "quoted" \\ $(not run)\n`), trace);
    assert.ok(trace.includes('\nfile-content\nline2\n'));
    assert.ok(trace.includes(`\n${projectDir} yes running true runnerto 0\n`));
    await assert.rejects(stat(`${projectDir}.tmp`), 'file variables are cleaned up');
    // The job's image is exported under the shell executor too, as gitlab-runner does.
    const withImage = await run(payload({ image: { name: 'ruby:3.3' }, steps: script('echo "image=${CI_JOB_IMAGE:-none}"') }), await jobSettings());
    assert.ok(withImage.trace.includes('\nimage=ruby:3.3\n'), withImage.trace);
    const withoutImage = await run(payload({ steps: script('echo "image=${CI_JOB_IMAGE:-none}"') }), await jobSettings());
    assert.ok(withoutImage.trace.includes('\nimage=none\n'), withoutImage.trace);
  });

  it('runs the sh flavour of the script too', async () => {
    const { outcome, trace } = await run(payload({ steps: script('echo "from sh: $CI_SERVER"', `echo 'single '"'"' quote'`) }), await jobSettings({ shell: 'sh' }));
    assert.deepEqual(outcome, { state: 'success' });
    assert.ok(trace.includes('from sh: yes\n') && trace.includes("single ' quote\n"));
  });

  it('clones with refspecs and depth, checks out the sha, and fetches into the same directory next time', async () => {
    const repo = await gitRepository({ 'README.md': 'hello\n', 'src/a.txt': 'a\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 50 };
    const settings = await jobSettings();
    const first = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone')], steps: script('cat README.md', 'echo junk > untracked.txt') }), settings);
    assert.deepEqual(first.outcome, { state: 'success' });
    const projectDir = path.join(settings.buildsDir, 'runnerto', '0', 'project-7');
    assert.ok(
      first.trace.includes(
        `${E}[32;1mFetching changes with git depth set to 50...${E}[0;m\nInitialized empty Git repository in ${projectDir}/.git/\n${E}[32;1mCreated fresh repository.${E}[0;m\n${E}[32;1mChecking out ${repo.sha.slice(0, 8)} as main...${E}[0;m\n${E}[32;1mSkipping Git submodules setup${E}[0;m\n`,
      ),
      first.trace,
    );
    assert.ok(first.trace.includes('\nhello\n'));
    const second = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'fetch')], steps: script('ls') }), settings);
    assert.ok(second.trace.includes(`Reinitialized existing Git repository in ${projectDir}/.git/`));
    assert.ok(!second.trace.includes('Created fresh repository.'));
    assert.ok(second.trace.includes('Removing untracked.txt\n'), 'git clean -ffdx removed it');
    assert.ok(!second.trace.split('$ ls')[1].includes('untracked.txt'));
    const noCheckout = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'fetch'), variable('GIT_CHECKOUT', 'false'), variable('GIT_CLEAN_FLAGS', 'none')], steps: script('true') }), settings);
    assert.ok(noCheckout.trace.includes('Skipping Git checkout'));
  });

  it('fails get_sources with script_failure when the repository cannot be fetched', async () => {
    const git = { repo_url: 'file:///no/such/repo.git', ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const { outcome, trace } = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone')] }));
    assert.equal(outcome.failureReason, 'script_failure');
    assert.equal(outcome.exitCode, 128);
    assert.ok(!trace.includes('step_script'));
  });

  it('runs get_sources GET_SOURCES_ATTEMPTS times before failing, and fails a job whose GET_SOURCES_ATTEMPTS is out of 1–10', async () => {
    const git = { repo_url: 'file:///no/such/repo.git', ref: 'main', sha: 'a'.repeat(40), before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const fetches = (trace: string) => trace.split('does not appear to be a git repository').length - 1;
    const three = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone'), variable('GET_SOURCES_ATTEMPTS', '3')] }));
    assert.equal(three.outcome.failureReason, 'script_failure');
    assert.equal(three.outcome.exitCode, 128);
    assert.equal(fetches(three.trace), 3, three.trace);
    assert.ok(three.trace.includes('attempt 2 of 3 (GET_SOURCES_ATTEMPTS)') && three.trace.includes('attempt 3 of 3 (GET_SOURCES_ATTEMPTS)'));
    const unset = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone'), variable('GET_SOURCES_ATTEMPTS', 'many')] }));
    assert.equal(fetches(unset.trace), 1, 'not a number: one attempt, as gitlab-runner');
    for (const value of ['0', '11']) {
      const refused = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone'), variable('GET_SOURCES_ATTEMPTS', value)] }));
      assert.equal(refused.outcome.failureReason, 'runner_system_failure', value);
      assert.ok(refused.trace.includes('number of attempts out of the range [1, 10] for stage: get_sources'), refused.trace);
      assert.equal(fetches(refused.trace), 0);
    }
  });

  it('uploads artifacts (paths, exclude, untracked, when), reports as gzip, and nothing for a when that does not apply', async () => {
    const repo = await gitRepository({ 'tracked.txt': 't\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: [], depth: 0 };
    const job = payload({
      git_info: git,
      variables: [variable('GIT_STRATEGY', 'clone')],
      steps: script('mkdir -p out/sub', 'echo 1 > out/a.txt', 'echo 2 > out/b.tmp', 'echo 3 > out/sub/c.txt', 'echo r > report.xml', 'echo u > loose.txt'),
      artifacts: [
        { name: 'bundle', untracked: false, paths: ['out/'], exclude: ['out/*.tmp'], when: 'on_success', expire_in: '7d', artifact_type: 'archive', artifact_format: 'zip' },
        { name: 'junit.xml', paths: ['report.xml'], when: 'always', expire_in: '7d', artifact_type: 'junit', artifact_format: 'gzip' },
        { name: 'loose', untracked: true, paths: [], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' },
        { name: 'never', untracked: false, paths: ['out/'], when: 'on_failure', artifact_type: 'archive', artifact_format: 'zip' },
      ],
    });
    const { outcome, session, trace } = await run(job);
    assert.deepEqual(outcome, { state: 'success' });
    assert.deepEqual(session.uploads.map((upload) => [upload.fileName, upload.artifactType, upload.artifactFormat, upload.expireIn ?? null]), [
      ['bundle.zip', 'archive', 'zip', '7d'],
      ['junit.xml.gz', 'junit', 'gzip', '7d'],
      ['loose.zip', 'archive', 'zip', null],
    ]);
    assert.deepEqual(await unzip(session.uploads[0].copy), { 'out/': '<dir>', 'out/a.txt': '1\n', 'out/sub/': '<dir>', 'out/sub/c.txt': '3\n' });
    const gz = await execa('gzip', ['-dc'], { inputFile: session.uploads[1].copy });
    assert.equal(gz.stdout, 'r');
    const loose = await unzip(session.uploads[2].copy);
    assert.ok('loose.txt' in loose && !('tracked.txt' in loose), JSON.stringify(loose));
    assert.ok(trace.includes(`section_start:T:upload_artifacts_on_success`));
    assert.ok(trace.includes('out/: found 4 matching artifact files and directories'));
    assert.ok(trace.includes('out/*.tmp: excluded 1 files'));
  });

  it("names the archive as gitlab-runner's uploader does: the name expanded once (a raw variable's `$` kept), its last path part, `default` when empty, `artifacts` when none", async () => {
    const archive = (name: string) => ({ name, untracked: false, paths: ['x.txt'], when: 'on_success' as const, artifact_type: 'archive', artifact_format: 'zip' as const });
    const job = payload({
      variables: [variable('GIT_STRATEGY', 'none'), variable('CI_JOB_NAME', 'build'), variable('TAG', 'v1'), variable('RAW', 'raw-$TAG', { raw: true })],
      steps: script('echo x > x.txt'),
      artifacts: [archive('out/$CI_JOB_NAME-$TAG'), archive('$RAW'), archive('$UNSET_NAME'), archive('')],
    });
    const { outcome, session } = await run(job);
    assert.deepEqual(outcome, { state: 'success' });
    assert.deepEqual(session.uploads.map((upload) => upload.fileName), ['build-v1.zip', 'raw-$TAG.zip', 'default.zip', 'artifacts.zip']);
  });

  it('uploads on_failure artifacts of a failed job, and a rejected upload fails the job', async () => {
    const job = payload({
      steps: script('echo x > x.txt', 'exit 1'),
      artifacts: [{ name: 'logs', paths: ['x.txt'], when: 'on_failure', artifact_type: 'archive', artifact_format: 'zip' }],
    });
    const failed = await run(job);
    assert.equal(failed.session.uploads.length, 1);
    assert.ok(failed.trace.includes('section_start:T:upload_artifacts_on_failure'));
    const session = new RecordingSession();
    session.uploadStatus = 413;
    const rejected = await run(payload({ steps: script('echo x > x.txt'), artifacts: [{ name: 'a', paths: ['x.txt'], when: 'on_success', artifact_type: 'archive', artifact_format: 'zip' }] }), undefined, session);
    assert.deepEqual(rejected.outcome, { state: 'failed', failureReason: 'script_failure', exitCode: 1 });
  });

  it('saves a cache on success and restores it in the next job (policies pull and push honoured)', async () => {
    const settings = await jobSettings();
    const cache = (policy: 'pull' | 'push' | 'pull-push') => [{ key: 'deps-$CI_JOB_ID_BASE', untracked: false, paths: ['vendor/'], policy, when: 'on_success' as const }];
    const vars = [variable('GIT_STRATEGY', 'none'), variable('CI_JOB_ID_BASE', 'k')];
    const first = await run(payload({ variables: vars, cache: cache('pull-push'), steps: script('mkdir -p vendor', 'echo cached > vendor/lib.txt') }), settings);
    assert.ok(first.trace.includes('Creating cache deps-k...'));
    await stat(path.join(settings.cacheDir, 'project-7', 'deps-k', 'cache.zip'));
    const second = await run(payload({ variables: vars, cache: cache('pull'), steps: script('rm -rf vendor', 'true') }), settings);
    assert.ok(second.trace.includes('Not uploading cache deps-k due to policy'));
    const third = await run(payload({ variables: vars, cache: cache('pull'), steps: script('cat vendor/lib.txt') }), settings);
    assert.ok(third.trace.includes('Checking cache for deps-k...') && third.trace.includes('Successfully extracted cache') && third.trace.includes('\ncached\n'), third.trace);
    const push = await run(payload({ variables: vars, cache: cache('push'), steps: script('true') }), settings);
    assert.ok(push.trace.includes('Not downloading cache deps-k due to policy'));
  });

  it('refuses a cache key that would leave the cache directory', async () => {
    for (const key of ['../../escape', '/../../escape', '${CI_PROJECT_DIR}/../../../../..']) {
      const { trace, settings } = await run(payload({ cache: [{ key, untracked: false, paths: ['x'], policy: 'pull-push', when: 'on_success' }], steps: script('echo > x') }));
      assert.ok(trace.includes(`cache key "${key}" is not valid`), trace);
      assert.ok(!trace.includes('Creating cache'), trace);
      await assert.rejects(stat(path.join(settings.cacheDir, '..', 'escape')));
    }
  });

  it('skips a cache whose key expands to nothing with a notice, as gitlab-runner does, and no warning', async () => {
    const cache = [{ key: '$UNSET_KEY', untracked: false, paths: ['vendor/'], policy: 'pull-push' as const, when: 'on_success' as const }];
    const { trace, settings } = await run(payload({ variables: [variable('GIT_STRATEGY', 'none')], cache, steps: script('mkdir -p vendor', 'echo cached > vendor/lib.txt') }));
    assert.ok(trace.includes(`${E}[32;1mSkipping cache extraction due to empty cache key${E}[0;m`), trace);
    assert.ok(trace.includes(`${E}[32;1mSkipping cache archiving due to empty cache key${E}[0;m`), trace);
    assert.ok(!trace.includes('WARNING') && !trace.includes('Creating cache'), trace);
    await assert.rejects(stat(path.join(settings.cacheDir, 'project-7', 'cache.zip')));
  });

  it("expands a `$VARIABLE` cache policy as gitlab-runner does: unset is pull-push, a value that is no policy fails the job", async () => {
    const settings = await jobSettings();
    const cache = [{ key: 'deps', untracked: false, paths: ['vendor/'], policy: '$POLICY', when: 'on_success' as const }];
    const steps = script('mkdir -p vendor', 'echo cached > vendor/lib.txt');
    const unset = await run(payload({ variables: [variable('GIT_STRATEGY', 'none')], cache, steps }), settings);
    assert.ok(unset.trace.includes('Checking cache for deps...') && unset.trace.includes('Creating cache deps...'), unset.trace);
    const pull = await run(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('POLICY', 'pull')], cache, steps }), settings);
    assert.ok(pull.trace.includes('Not uploading cache deps due to policy'), pull.trace);
    const bogus = await run(payload({ variables: [variable('GIT_STRATEGY', 'none'), variable('POLICY', 'sometimes')], cache, steps }), settings);
    assert.deepEqual(bogus.outcome, { state: 'failed', failureReason: 'runner_system_failure' }, bogus.trace);
    assert.ok(bogus.trace.includes('unknown cache policy sometimes for deps'), bogus.trace);
  });

  it("expands a cache key with the runner's own variables, a key naming the project directory kept under the cache directory, as gitlab-runner joins it", async () => {
    const settings = await jobSettings({ environment: ['CACHE_NS=team'] });
    // As GitLab sends `cache: key: ${TF_ROOT}` with `TF_ROOT: ${CI_PROJECT_DIR}`: both for the runner.
    const vars = [variable('GIT_STRATEGY', 'none'), variable('TF_ROOT', '${CI_PROJECT_DIR}')];
    const caches = (policy: 'pull' | 'pull-push') => [
      { key: '${TF_ROOT}', untracked: false, paths: ['vendor/'], policy, when: 'on_success' as const },
      { key: '$CACHE_NS/deps-$CI_CONCURRENT_ID', untracked: false, paths: ['vendor/'], policy, when: 'on_success' as const },
    ];
    const first = await run(payload({ variables: vars, cache: caches('pull-push'), steps: script('echo "dir:$CI_PROJECT_DIR"', 'mkdir -p vendor', 'echo cached > vendor/lib.txt') }), settings);
    const projectDir = /^dir:(\/.+)$/m.exec(first.trace)?.[1];
    assert.ok(projectDir, first.trace);
    assert.ok(first.trace.includes(`Creating cache ${projectDir}...`), first.trace);
    await stat(path.join(settings.cacheDir, 'project-7', projectDir, 'cache.zip'));
    assert.ok(first.trace.includes('Creating cache team/deps-0...'), first.trace);
    await stat(path.join(settings.cacheDir, 'project-7', 'team', 'deps-0', 'cache.zip'));
    const second = await run(payload({ variables: vars, cache: caches('pull').slice(0, 1), steps: script('cat vendor/lib.txt') }), settings);
    assert.ok(second.trace.includes(`Checking cache for ${projectDir}...`) && second.trace.includes('Successfully extracted cache') && second.trace.includes('\ncached\n'), second.trace);
  });

  it('downloads dependency artifacts into the project; a missing one fails with missing_dependency_failure', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'gantry-dep-'));
    await execa('bash', ['-c', 'mkdir -p d/out && echo built > d/out/app.txt && cd d && zip -qr ../dep.zip out'], { cwd: work });
    const session = new RecordingSession({ 1200: path.join(work, 'dep.zip') });
    const dependency = { id: 1200, name: 'build', token: 'dep-token', artifacts_file: { filename: 'artifacts.zip', size: 1 } };
    const ok = await run(payload({ dependencies: [dependency], steps: script('cat out/app.txt') }), undefined, session);
    assert.deepEqual(ok.outcome, { state: 'success' });
    assert.ok(ok.trace.includes('section_start:T:download_artifacts') && ok.trace.includes('\nbuilt\n'));
    const missing = await run(payload({ dependencies: [{ ...dependency, id: 1201 }] }));
    assert.deepEqual(missing.outcome, { state: 'failed', failureReason: 'missing_dependency_failure' });
  });

  it('downloads the dependencies\' archives while get_sources runs, and starts none once the job failed before download_artifacts', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'gantry-dep-early-'));
    await execa('bash', ['-c', 'mkdir -p d/out && echo early > d/out/app.txt && cd d && zip -qr ../dep.zip out'], { cwd: work });
    /** Notes how far get_sources had got when each download started. */
    class EarlySession extends RecordingSession {
      readonly tracesAtDownload: string[] = [];
      override async downloadArtifacts(dependency: Dependency, destination: string): Promise<void> {
        this.tracesAtDownload.push(this.trace);
        // The first archive arrives once get_sources is over (its output in the trace).
        while (!/section_end:\d+:get_sources/.test(this.trace)) await new Promise((resolve) => setImmediate(resolve));
        return super.downloadArtifacts(dependency, destination);
      }
    }
    const repo = await gitRepository({ 'README.md': 'hello\n' });
    const git = { repo_url: repo.url, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch' as const, refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 0 };
    const dependency = { id: 1300, name: 'build', token: 'dep-token', artifacts_file: { filename: 'artifacts.zip', size: 1 } };
    const session = new EarlySession({ 1300: path.join(work, 'dep.zip'), 1301: path.join(work, 'dep.zip') });
    const ok = await run(payload({ git_info: git, variables: [variable('GIT_STRATEGY', 'clone')], dependencies: [dependency, { ...dependency, id: 1301 }], steps: script('cat out/app.txt README.md') }), undefined, session);
    assert.deepEqual(ok.outcome, { state: 'success' }, ok.trace);
    assert.ok(ok.trace.includes('\nearly\nhello\n'), ok.trace);
    assert.equal(session.tracesAtDownload.length, 2);
    assert.ok(!session.tracesAtDownload[0]!.includes('Skipping Git submodules setup'), 'the first download started before get_sources ended');

    // get_sources fails: the first download had started, the second never starts.
    const failing = new EarlySession({ 1300: path.join(work, 'dep.zip'), 1301: path.join(work, 'dep.zip') });
    const broken = { ...git, repo_url: 'file:///no/such/repo.git' };
    const failed = await run(payload({ git_info: broken, variables: [variable('GIT_STRATEGY', 'clone')], dependencies: [dependency, { ...dependency, id: 1301 }] }), undefined, failing);
    assert.equal(failed.outcome.state, 'failed');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(failing.tracesAtDownload.length, 1);
    assert.ok(!failed.trace.includes('download_artifacts'));
  });

  it('refuses dependency archives with `..`, absolute paths or escaping symlinks (zip slip)', async () => {
    const work = await mkdtemp(path.join(os.tmpdir(), 'gantry-slip-'));
    const make = `
import zipfile, sys
def z(name, entries):
    with zipfile.ZipFile(name, 'w') as f:
        for n, data, link in entries:
            info = zipfile.ZipInfo(n)
            if link:
                info.external_attr = (0o120777 << 16)
            f.writestr(info, data)
z('dotdot.zip', [('../../evil.txt', 'x', False)])
z('absolute.zip', [('/tmp/gantry-evil-abs.txt', 'x', False)])
z('symlink.zip', [('link', '/etc', True), ('link/passwd-copy', 'x', False)])
`;
    await execa('/usr/bin/python3', ['-c', make], { cwd: work });
    for (const name of ['dotdot', 'absolute', 'symlink']) {
      const session = new RecordingSession({ 5: path.join(work, `${name}.zip`) });
      const { outcome } = await run(payload({ dependencies: [{ id: 5, name: 'bad', token: 't', artifacts_file: { filename: 'a.zip', size: 1 } }] }), undefined, session);
      assert.equal(outcome.state, 'failed', name);
    }
    await assert.rejects(stat('/tmp/gantry-evil-abs.txt'));
    await assert.rejects(readFile(path.join(os.tmpdir(), 'evil.txt')));
  });
});
