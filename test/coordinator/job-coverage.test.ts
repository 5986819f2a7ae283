import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../src/shared/logger.ts';
import { startContract, type Contract } from '../helpers/runner-contract.ts';

/**
 * The `coverage:` keyword with our runner (shell executor): the job's coverage from its log
 * (GitLab's `Ci::Build#update_coverage`), the pipeline's as the average of its latest jobs',
 * through the jobs and pipelines APIs.
 */
const REGEX = String.raw`'/Coverage: \d+\.\d+%/'`;

describe('coverage from job logs (shell runner)', () => {
  let contract: Contract;
  let markers: string;

  before(async () => {
    markers = await mkdtemp(path.join(tmpdir(), 'gantry-coverage-'));
    // A small scan budget, so that a log of a few KiB passes it.
    contract = await startContract({
      executor: 'shell',
      coordinator: { logger: silentLogger(), ci: { runnerJobs: { traces: { intervalSeconds: 1, watchedIntervalSeconds: 1 }, coverage: { maxBytes: 4096, chunkBytes: 1024 } } } },
    });
  });
  after(async () => {
    await contract.close();
    await rm(markers, { recursive: true, force: true });
  });

  async function run(name: string, ci: string): Promise<{ status: string; jobs: Map<string, Record<string, unknown>>; pipeline: Record<string, unknown> }> {
    const { projectId, pipelineId } = await contract.project(name, { '.gitlab-ci.yml': ci });
    const { status, jobs } = await contract.finished(projectId, pipelineId);
    const pipeline = await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`);
    assert.equal(pipeline.status, 200, pipeline.text);
    const byName = new Map<string, Record<string, unknown>>();
    for (const job of jobs) {
      const one = await contract.test.api('GET', `/projects/${projectId}/jobs/${String(job.id)}`);
      assert.equal(one.status, 200, one.text);
      // The list and the single job agree.
      assert.equal(one.json.coverage, job.coverage, String(job.name));
      byName.set(String(job.name), one.json);
    }
    return { status, jobs: byName, pipeline: pipeline.json };
  }

  it('stores the printed coverage on the job and the pipeline; the job page and the coverage badge show it', async () => {
    const { status, jobs, pipeline } = await run('one-job', `test:\n  script: 'echo "Coverage: 81.25%"'\n  coverage: ${REGEX}\n`);
    assert.equal(status, 'success');
    assert.equal(jobs.get('test')?.coverage, 81.25);
    assert.equal(pipeline.coverage, '81.25');
    const project = await contract.test.api('PUT', `/projects/${String(pipeline.project_id)}`, { body: { visibility: 'public' } });
    assert.equal(project.status, 200, project.text);
    const get = (url: string) => contract.test.coordinator.app.inject({ method: 'GET', url });
    const projectPath = String(project.json.path_with_namespace);
    assert.match((await get(`/${projectPath}/badges/main/coverage.svg`)).body, />81.25%<\/text>/);
    assert.match((await get(`/${projectPath}/-/jobs/${String(jobs.get('test')?.id)}`)).body, /<dt>Coverage<\/dt><dd>81.25%<\/dd>/);
  });

  it('averages the jobs that have a coverage (two decimals); a job without the keyword or without a match has none', async () => {
    const ci = [
      `a:\n  script: 'echo "Coverage: 80.00%"'\n  coverage: ${REGEX}`,
      `b:\n  script: 'echo "Coverage: 77.00%"'\n  coverage: ${REGEX}`,
      `plain:\n  script: 'echo "Coverage: 10.00%"'`,
      `unmatched:\n  script: 'echo "no figures here"'\n  coverage: ${REGEX}`,
    ].join('\n');
    const { jobs, pipeline } = await run('two-jobs', `${ci}\n`);
    assert.equal(jobs.get('a')?.coverage, 80);
    assert.equal(jobs.get('b')?.coverage, 77);
    assert.equal(jobs.get('plain')?.coverage, null);
    assert.equal(jobs.get('unmatched')?.coverage, null);
    assert.equal(pipeline.coverage, '78.50');
  });

  it('takes the last matching line, and the last match of that line; a failed job gets its coverage too', async () => {
    const script = ['echo "Coverage: 10.00%"', 'echo "Coverage: 20.50% then Coverage: 30.75%"', 'echo "done"', 'exit 1'];
    const ci = `last:\n  script:\n${script.map((line) => `    - '${line}'`).join('\n')}\n  coverage: ${REGEX}\n`;
    const { status, jobs, pipeline } = await run('last-match', ci);
    assert.equal(status, 'failed');
    assert.equal(jobs.get('last')?.coverage, 30.75);
    assert.equal(pipeline.coverage, '30.75');
  });

  it('passes over a match without a number; with groups takes the last group; anchors hold on timestamped lines', async () => {
    const ci = [
      'total:',
      '  variables:',
      "    FF_TIMESTAMPS: 'true'",
      '  script:',
      `    - 'echo "Total: 64.5 percent"'`,
      `    - 'echo "Total: none"'`,
      String.raw`  coverage: '/^Total: \S+/'`,
      'groups:',
      `  script: 'echo "75% of 200 lines"'`,
      String.raw`  coverage: '/(\d+)% of (\d+) lines/'`,
    ].join('\n');
    const { projectId, pipelineId } = await contract.project('no-number', { '.gitlab-ci.yml': `${ci}\n` });
    const { jobs } = await contract.finished(projectId, pipelineId);
    const byName = new Map(jobs.map((job) => [job.name, job]));
    assert.match(await contract.trace(projectId, Number(byName.get('total')?.id)), /^\d{4}-\d\d-\d\dT[^ ]+Z 0[01][OE][ +]/, 'the log has timestamps');
    assert.equal(byName.get('total')?.coverage, 64.5);
    assert.equal(byName.get('groups')?.coverage, 200, "GitLab's rule: the last group of the last match");
  });

  it("replaces a retried job's coverage by the retry's", async () => {
    const marker = path.join(markers, 'retried');
    const script = `if [ -e ${marker} ]; then echo "Coverage: 90.00%"; else touch ${marker}; echo "Coverage: 10.00%"; exit 1; fi`;
    const ci = `flaky:\n  script: '${script}'\n  retry: 1\n  coverage: ${REGEX}\nsteady:\n  script: 'echo "Coverage: 50.00%"'\n  coverage: ${REGEX}\n`;
    const { projectId, pipelineId } = await contract.project('retried', { '.gitlab-ci.yml': ci });
    const { status } = await contract.finished(projectId, pipelineId);
    assert.equal(status, 'success');
    const all = await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}/jobs?include_retried=true`);
    const flaky = all.list.filter((job) => job.name === 'flaky').sort((a, b) => Number(a.id) - Number(b.id));
    assert.deepEqual(flaky.map((job) => [job.status, job.coverage]), [['failed', 10], ['success', 90]]);
    const pipeline = await contract.test.api('GET', `/projects/${projectId}/pipelines/${pipelineId}`);
    assert.equal(pipeline.json.coverage, '70.00');
  });

  it('finds nothing past its byte budget: a coverage line followed by more than the budget of log', async () => {
    const filler = `for i in $(seq 1 80); do echo "filler line $i ......................................................"; done`;
    const early = `early:\n  script:\n    - 'echo "Coverage: 42.00%"'\n    - '${filler}'\n  coverage: ${REGEX}\n`;
    const late = `late:\n  script:\n    - '${filler}'\n    - 'echo "Coverage: 43.00%"'\n  coverage: ${REGEX}\n`;
    const { jobs, pipeline } = await run('budget', `${early}${late}`);
    assert.equal(jobs.get('early')?.coverage, null);
    assert.equal(jobs.get('late')?.coverage, 43, 'lines across the 1 KiB chunks of the scan');
    assert.equal(pipeline.coverage, '43.00');
  });
});
