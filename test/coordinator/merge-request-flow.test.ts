import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { gitSucceeds, startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';

const CI = `
branch-job:
  script: make
  rules: [{ if: $CI_COMMIT_BRANCH }]
mr-job:
  script: make check
  rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]
`;

/**
 * The whole path through the API and git, no stand-ins: open a request, its pipeline, a push
 * to the source, the head ref anyone can fetch, the merge that closes an issue.
 */
describe('a merge request from opening to merge', () => {
  let fixture: GitHttpFixture;
  let project: ProjectRecord;
  let cwd: string;

  const git = (...args: string[]): Promise<string> => gitSucceeds(fixture, cwd, args);
  const requestPipelines = async (): Promise<PipelineRecord[]> =>
    (await fixture.gantry.coordinator.context.stores.pipelines.list({ projectId: project.id, ref: 'refs/merge-requests/1/head' }, { offset: 0, limit: 50 })).items;
  const commitAndPush = async (file: string, content: string): Promise<string> => {
    writeFileSync(path.join(cwd, file), content);
    await git('add', '.');
    await git('commit', '-m', `Change ${file}`);
    await git('push', 'origin', 'feature');
    return git('rev-parse', 'HEAD');
  };

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 20 } } });
    const group = await makeGroup(fixture.gantry, 'flow-team');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    cwd = path.join(fixture.workDir, 'flow');
    const clone = await fixture.git(['clone', fixture.url('flow-team/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
    writeFileSync(path.join(cwd, '.gitlab-ci.yml'), CI);
    await git('add', '.');
    await git('commit', '-m', 'CI');
    await git('push', 'origin', 'HEAD:main');
    await git('checkout', '-b', 'feature');
  });
  after(() => fixture.close());

  it('runs a merge request pipeline on open and on each push, shows it as head_pipeline, and merges', async () => {
    const issue = await fixture.gantry.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Broken build' } });
    assert.equal(issue.status, 201, issue.text);
    const first = await commitAndPush('a.txt', 'a\n');
    const opened = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests`, {
      body: { source_branch: 'feature', target_branch: 'main', title: 'Add a', description: `Closes #${String(issue.json.iid)}` },
    });
    assert.equal(opened.status, 201, opened.text);
    assert.equal(opened.json.iid, 1);
    assert.equal(opened.json.sha, first);

    await waitUntil(async () => (await requestPipelines()).length === 1, 'the pipeline of the opened request');
    const [onOpen] = await requestPipelines();
    assert.equal(onOpen?.source, 'merge_request_event');
    assert.equal(onOpen?.sha, first);
    // The request takes its new pipeline as head pipeline just after the pipeline is saved (GitLab: a worker after creation).
    let shown = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/1`);
    await waitUntil(async () => {
      shown = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/1`);
      return (shown.json.head_pipeline as { id: number } | null)?.id === onOpen?.id;
    }, 'the request pipeline as head_pipeline');
    assert.equal((shown.json.diff_refs as { head_sha: string }).head_sha, first);
    assert.equal(shown.json.changes_count, '1');

    const second = await commitAndPush('b.txt', 'b\n');
    await waitUntil(async () => (await requestPipelines()).some((pipeline) => pipeline.sha === second), 'the pipeline of the push to the source');
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/1/pipelines`);
    assert.ok(listed.list.some((pipeline) => pipeline.sha === second && pipeline.source === 'merge_request_event'), listed.text);
    const fetched = await fixture.git(['fetch', 'origin', 'refs/merge-requests/1/head'], { cwd });
    assert.equal(fetched.code, 0, fetched.stderr);
    assert.equal(await git('rev-parse', 'FETCH_HEAD'), second, 'the head ref follows the source branch');

    const merged = await fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/1/merge`, { body: { sha: second } });
    assert.equal(merged.status, 200, merged.text);
    assert.equal(merged.json.state, 'merged');
    await git('fetch', 'origin', 'main');
    assert.equal(await git('rev-parse', 'FETCH_HEAD'), merged.json.merge_commit_sha);
    assert.equal(await git('rev-parse', 'FETCH_HEAD^2'), second, 'a merge commit with the source as second parent');
    await waitUntil(async () => (await fixture.gantry.api('GET', `/projects/${project.id}/issues/${String(issue.json.iid)}`)).json.state === 'closed', 'the issue the request closes');
  });
});
