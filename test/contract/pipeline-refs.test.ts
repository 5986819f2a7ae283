/**
 * GitLab's persistent pipeline ref `refs/pipelines/<id>` with our runner (shell executor) against
 * our coordinator: the jobs fetch it, so a branch deleted or force-pushed before a job runs does
 * not take the pipeline's commit away; it goes once the pipeline completes and comes back for a
 * retried job. Branch moves are made with git in the bare repository (as a push would leave it).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { GitRepositoryManager } from '../../src/storage/git/manager.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

const exec = promisify(execFile);
const ci = (lines: string[]): string => `${lines.join('\n')}\n`;

describe('persistent pipeline refs with the shell runner', () => {
  let contract: Contract;
  let scratch: string;
  before(async () => {
    contract = await startContract({ executor: 'shell' });
    scratch = mkdtempSync(path.join(tmpdir(), 'gantry-pipeline-refs-'));
  });
  after(async () => {
    await contract.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const gitDir = (projectId: number): string => {
    const { repositories } = contract.test.coordinator.context;
    assert.ok(repositories instanceof GitRepositoryManager);
    return repositories.repositoryPath(projectId);
  };
  const git = async (projectId: number, args: string[]): Promise<string> => (await exec('git', ['--git-dir', gitDir(projectId), ...args])).stdout.trim();
  const pipelineRefTip = async (projectId: number, pipelineId: number): Promise<string | null> =>
    (await git(projectId, ['for-each-ref', '--format=%(objectname)', `refs/pipelines/${pipelineId}`])) || null;
  /** main moved to a root commit of its own: the pipeline's commit is on no branch any more. */
  const forcePushUnrelated = async (projectId: number): Promise<string> => {
    const emptyTree = await git(projectId, ['hash-object', '-t', 'tree', '-w', '/dev/null']);
    const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };
    const unrelated = (await exec('git', ['--git-dir', gitDir(projectId), 'commit-tree', emptyTree, '-m', 'unrelated history'], { env })).stdout.trim();
    await git(projectId, ['update-ref', 'refs/heads/main', unrelated]);
    return unrelated;
  };
  const pipelineSha = async (projectId: number, pipelineId: number): Promise<string> =>
    String((await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`)).json.sha);
  const jobsOf = async (projectId: number, pipelineId: number) => (await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?include_retried=true`)).list;
  const refGone = (projectId: number, pipelineId: number) => waitUntil(async () => (await pipelineRefTip(projectId, pipelineId)) === null, `refs/pipelines/${pipelineId} removed`);

  /** A pipeline held by a blocking manual job (the pipeline waits, not completed), with a file only its commit has. */
  const heldPipeline = async (name: string, variables: string[]) => {
    const { projectId, pipelineId } = await contract.project(name, {
      '.gitlab-ci.yml': ci([
        ...variables,
        'held:',
        '  when: manual',
        '  allow_failure: false',
        '  script:',
        '    - test "$(git rev-parse HEAD)" = "$CI_COMMIT_SHA"',
        '    - cat only-here.txt',
      ]),
      'only-here.txt': 'from the pipeline commit\n',
    });
    await waitUntil(async () => (await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`)).json.status === 'manual', 'the pipeline waiting on its manual job');
    const sha = await pipelineSha(projectId, pipelineId);
    assert.equal(await pipelineRefTip(projectId, pipelineId), sha, 'the ref is written when the pipeline is created');
    const [job] = await jobsOf(projectId, pipelineId);
    return { projectId, pipelineId, sha, jobId: Number(job!.id) };
  };

  it('a branch deleted before the job is picked up: the job checks out the pipeline commit (GIT_DEPTH 0) and the ref goes at the end', async () => {
    const { projectId, pipelineId, jobId } = await heldPipeline('deleted-branch', ['variables:', '  GIT_DEPTH: "0"']);
    await git(projectId, ['update-ref', '-d', 'refs/heads/main']);
    assert.equal((await contract.test.api('POST', `/projects/${projectId}/jobs/${jobId}/play`)).status, 200);
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success', await contract.trace(projectId, Number(jobs[0]!.id)));
    assert.match(await contract.trace(projectId, jobId), /from the pipeline commit/);
    await refGone(projectId, pipelineId);
  });

  it('a branch force-pushed to an unrelated history before the job runs: the job checks out the pipeline commit', async () => {
    const { projectId, pipelineId, sha, jobId } = await heldPipeline('force-pushed', []);
    const unrelated = await forcePushUnrelated(projectId);
    assert.notEqual(unrelated, sha);
    assert.equal((await contract.test.api('POST', `/projects/${projectId}/jobs/${jobId}/play`)).status, 200);
    const { status } = await contract.finished(projectId, pipelineId);
    const trace = await contract.trace(projectId, jobId);
    assert.equal(status, 'success', trace);
    assert.match(trace, /from the pipeline commit/);
    await refGone(projectId, pipelineId);
  });

  it('a deleted pipeline takes its ref with it', async () => {
    const { projectId, pipelineId } = await heldPipeline('deleted-pipeline', []);
    assert.equal((await contract.test.api('DELETE', `/projects/${projectId}/pipelines/${pipelineId}`)).status, 204);
    assert.equal(await pipelineRefTip(projectId, pipelineId), null);
  });

  it('the ref exists while the pipeline runs (fetchable, not pushable), is gone after it completes, and a retried job gets it back', async () => {
    const release = path.join(scratch, 'release');
    const { projectId, pipelineId } = await contract.project(
      'retried',
      { '.gitlab-ci.yml': ci(['wait:', '  script:', '    - while [ ! -f "$RELEASE_FILE" ]; do sleep 0.1; done', '    - test "$(git rev-parse HEAD)" = "$CI_COMMIT_SHA"']) },
      [{ key: 'RELEASE_FILE', value: release }],
    );
    await waitUntil(async () => (await jobsOf(projectId, pipelineId))[0]?.status === 'running', 'the job running');
    const sha = await pipelineSha(projectId, pipelineId);
    assert.equal(await pipelineRefTip(projectId, pipelineId), sha);

    const project = (await contract.test.api('GET', `/projects/${projectId}`)).json;
    const url = new URL(`${contract.url}/${String(project.path_with_namespace)}.git`);
    url.username = 'root';
    url.password = contract.test.rootToken;
    const advertised = (await exec('git', ['ls-remote', url.toString()])).stdout;
    assert.match(advertised, new RegExp(`^${sha}\\trefs/pipelines/${pipelineId}$`, 'm'), 'fetchers see the ref, as Gitaly advertises it');
    const clone = path.join(scratch, 'clone');
    await exec('git', ['clone', '-q', url.toString(), clone]);
    const pushed = await exec('git', ['-C', clone, 'push', 'origin', `HEAD:refs/pipelines/${pipelineId + 1000}`]).then(
      () => null,
      (error: { stderr: string }) => error.stderr,
    );
    assert.match(pushed ?? 'the push was accepted', /hidden ref/);

    writeFileSync(release, '');
    assert.equal((await contract.finished(projectId, pipelineId)).status, 'success');
    await refGone(projectId, pipelineId);

    // The commit is on no ref now: only the ref the retried job's hand-out writes again makes it fetchable.
    await forcePushUnrelated(projectId);
    const [first] = await jobsOf(projectId, pipelineId);
    const retried = await contract.test.api('POST', `/projects/${projectId}/jobs/${String(first!.id)}/retry`);
    assert.equal(retried.status, 201, retried.text);
    await waitUntil(async () => (await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`)).json.status === 'success', 'the retried pipeline succeeding', {
      timeoutMs: 60_000,
      intervalMs: 50,
    });
    const jobs = await jobsOf(projectId, pipelineId);
    const again = jobs.find((job) => Number(job.id) === Number(retried.json.id));
    assert.equal(again?.status, 'success', await contract.trace(projectId, Number(retried.json.id)));
    await refGone(projectId, pipelineId);
  });
});
