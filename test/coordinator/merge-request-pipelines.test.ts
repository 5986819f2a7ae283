import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import type { MergeRequestRecord } from '../../src/storage/types-merge-requests.ts';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { ProjectRecord, UserRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { INFO_18, USER_AGENT_18 } from '../helpers/gitlab-runner-18.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { gitSucceeds, startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';

interface JobPayload {
  job_info: { name: string };
  git_info: { repo_url: string; ref: string; refspecs: string[]; sha: string; depth: number };
  variables: Array<{ key: string; value: string }>;
}

const CI = `
stages: [test]
branch-job:
  script: make
  rules: [{ if: $CI_COMMIT_BRANCH }]
mr-src:
  script: make
  tags: [mr]
  id_tokens: { ID_TOKEN: { aud: https://aud.example.com } }
  rules:
    - if: '$CI_PIPELINE_SOURCE == "merge_request_event"'
      changes: [src/**/*]
mr-docs:
  script: make docs
  rules:
    - if: $CI_MERGE_REQUEST_IID
      changes: [docs/**/*]
`;

describe('merge request pipelines', () => {
  let fixture: GitHttpFixture;
  let project: ProjectRecord;
  let root: UserRecord;
  let cwd: string;
  let gitDir: string;
  let mergeRequest: MergeRequestRecord;
  let payload: JobPayload;

  const git = (...args: string[]): Promise<string> => gitSucceeds(fixture, cwd, args);
  const stores = () => fixture.gantry.coordinator.context.stores;
  const services = () => ciServicesOf(fixture.gantry.coordinator);

  async function pipelinesOf(ref: string): Promise<PipelineRecord[]> {
    return (await stores().pipelines.list({ projectId: project.id, ref }, { offset: 0, limit: 50 })).items;
  }

  async function jobStatuses(pipelineId: number): Promise<Record<string, string>> {
    const { items } = await stores().jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 50 });
    return Object.fromEntries(items.map((job) => [job.name, job.status]));
  }

  /** What mr-git's refresher does after a push to the source branch: the ref, the diff refs, the announcement. */
  async function refresh(request: MergeRequestRecord, head: string): Promise<MergeRequestRecord> {
    execFileSync('git', [`--git-dir=${gitDir}`, 'update-ref', `refs/merge-requests/${request.iid}/head`, head]);
    const base = execFileSync('git', [`--git-dir=${gitDir}`, 'merge-base', 'refs/heads/main', head], { encoding: 'utf8' }).trim();
    const updated = await stores().mergeRequests.update(request.id, { head_sha: head, base_sha: base, start_sha: base }, {});
    assert.ok(updated);
    await services().mergeRequestPipelines.mergeRequestRefreshed({ project, mergeRequest: updated, sourceMoved: true, actor: root });
    return updated;
  }

  async function branchPipelineAt(sha: string): Promise<PipelineRecord> {
    let found: PipelineRecord | undefined;
    await waitUntil(async () => (found = (await pipelinesOf('feature')).find((pipeline) => pipeline.sha === sha)) !== undefined, 'the branch pipeline');
    return found as PipelineRecord;
  }

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 20 } } });
    const group = await makeGroup(fixture.gantry, 'mr-team');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    root = (await stores().users.findById(1)) as UserRecord;
    gitDir = path.join(fixture.gantry.dataDir, 'repositories', `${project.id}.git`);
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('mr-team/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
    writeFileSync(path.join(cwd, '.gitlab-ci.yml'), CI);
    await git('add', '.');
    await git('commit', '-m', 'CI');
    await git('push', 'origin', 'HEAD:main');
    await git('checkout', '-b', 'feature');
    mkdirSync(path.join(cwd, 'src'));
    writeFileSync(path.join(cwd, 'src', 'a.c'), 'int a;\n');
    await git('add', '.');
    await git('commit', '-m', 'Add a');
    await git('push', 'origin', 'feature');
    const label = await stores().labels.create({ project_id: project.id, group_id: null, title: 'backend', color: '#ff0000', description: null, priority: null, created_at: new Date().toISOString(), updated_at: new Date().toISOString() });
    mergeRequest = await stores().mergeRequests.create(
      { project_id: project.id, source_project_id: project.id, source_branch: 'feature', target_branch: 'main', author_id: 1, title: 'Add a', description: null, state: 'opened', created_at: new Date().toISOString() },
      { labelIds: [label.id], assigneeIds: [1] },
    );
  });
  after(() => fixture.close());

  it('a refresh creates the merge request pipeline in the target project: its ref, source, request, and only the jobs for merge requests', async () => {
    const head = await git('rev-parse', 'HEAD');
    const branch = await branchPipelineAt(head);
    assert.deepEqual(await jobStatuses(branch.id), { 'branch-job': 'pending' });
    mergeRequest = await refresh(mergeRequest, head);
    const ref = `refs/merge-requests/${mergeRequest.iid}/head`;
    await waitUntil(async () => (await pipelinesOf(ref)).length === 1, 'the merge request pipeline');
    const [pipeline] = await pipelinesOf(ref);
    assert.ok(pipeline);
    assert.equal(pipeline.source, 'merge_request_event');
    assert.equal(pipeline.sha, head);
    assert.equal(pipeline.merge_request_id, mergeRequest.id);
    assert.equal(pipeline.protected, false);
    assert.equal(pipeline.user_id, 1);
    // rules:changes against the merge base: src/ changed, docs/ did not.
    assert.deepEqual(await jobStatuses(pipeline.id), { 'mr-src': 'pending' });
    // The request's own pipeline is its head pipeline, though the branch pipeline is at the same commit (set just after the pipeline is saved).
    await waitUntil(async () => (await stores().mergeRequests.findByIid(project.id, mergeRequest.iid))?.head_pipeline_id === pipeline.id, 'the request pipeline as head pipeline');
  });

  it('a refresh again at the same head (a retried refresh) creates no second pipeline', async () => {
    await services().mergeRequestPipelines.mergeRequestRefreshed({ project, mergeRequest, sourceMoved: true, actor: root });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await pipelinesOf(`refs/merge-requests/${mergeRequest.iid}/head`)).length, 1);
  });

  it('the job payload: the request ref fetched, CI_MERGE_REQUEST_* variables, no CI_COMMIT_BRANCH', async () => {
    await stores().runners.create({ runner_type: 'instance_type', created_at: new Date().toISOString(), run_untagged: false, tag_list: ['mr'], description: 'mr runner' }, 'mr-runner-token-1');
    // As gitlab-runner 18 asks (its user agent and features).
    const response = await fixture.gantry.api('POST', '/jobs/request', { token: null, headers: { 'user-agent': USER_AGENT_18 }, body: { token: 'mr-runner-token-1', info: INFO_18, system_id: 's_0123456789ab' } });
    assert.equal(response.status, 201, response.text);
    payload = response.json as unknown as JobPayload;
    assert.equal(payload.job_info.name, 'mr-src');
    const value = (key: string) => payload.variables.find((variable) => variable.key === key)?.value;
    assert.equal(payload.git_info.ref, `refs/merge-requests/${mergeRequest.iid}/head`);
    assert.ok(payload.git_info.refspecs.includes(`+refs/merge-requests/${mergeRequest.iid}/head:refs/merge-requests/${mergeRequest.iid}/head`), payload.git_info.refspecs.join(' '));
    assert.equal(value('CI_PIPELINE_SOURCE'), 'merge_request_event');
    assert.equal(value('CI_COMMIT_REF_NAME'), 'feature');
    assert.equal(value('CI_COMMIT_BRANCH'), undefined);
    assert.equal(value('CI_MERGE_REQUEST_IID'), String(mergeRequest.iid));
    assert.equal(value('CI_MERGE_REQUEST_SOURCE_BRANCH_NAME'), 'feature');
    assert.equal(value('CI_MERGE_REQUEST_TARGET_BRANCH_NAME'), 'main');
    assert.equal(value('CI_MERGE_REQUEST_TITLE'), 'Add a');
    assert.equal(value('CI_MERGE_REQUEST_LABELS'), 'backend');
    assert.equal(value('CI_MERGE_REQUEST_ASSIGNEES'), 'root');
    assert.equal(value('CI_MERGE_REQUEST_PROJECT_PATH'), 'mr-team/app');
    assert.equal(value('CI_MERGE_REQUEST_SOURCE_PROJECT_URL'), `${fixture.gantry.coordinator.context.config.externalUrl.replace(/\/+$/, '')}/mr-team/app`);
    assert.equal(value('CI_MERGE_REQUEST_DIFF_BASE_SHA'), mergeRequest.base_sha);
    assert.equal(value('CI_MERGE_REQUEST_EVENT_TYPE'), 'detached');
    // An ID token names the request's source branch, as GitLab's source_ref (signature checked in runner-job-id-tokens.test.ts).
    const claims = JSON.parse(Buffer.from(String(value('ID_TOKEN')).split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    assert.deepEqual([claims.ref, claims.ref_type, claims.ref_path, claims.pipeline_source], ['feature', 'branch', 'refs/heads/feature', 'merge_request_event']);
    assert.equal(claims.sub, 'project_path:mr-team/app:ref_type:branch:ref:feature');
  });

  it('the runner git steps (init, fetch of the refspecs, checkout of the sha) get the request head from the target repository', async () => {
    const checkout = path.join(fixture.workDir, 'build');
    mkdirSync(checkout);
    const origin = new URL(payload.git_info.repo_url);
    const served = new URL(fixture.baseUrl);
    origin.host = served.host;
    const inBuild = async (...args: string[]) => {
      const result = await fixture.git(args, { cwd: checkout });
      assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
      return result.stdout.trim();
    };
    await inBuild('init', '-q');
    await inBuild('remote', 'add', 'origin', origin.toString());
    await inBuild('fetch', '-q', 'origin', '--depth', String(payload.git_info.depth), ...payload.git_info.refspecs);
    await inBuild('checkout', '-f', '-q', payload.git_info.sha);
    assert.equal(await inBuild('rev-parse', 'HEAD'), payload.git_info.sha);
    assert.equal(await inBuild('rev-parse', `refs/merge-requests/${mergeRequest.iid}/head`), payload.git_info.sha);
    assert.equal(await inBuild('show', 'HEAD:src/a.c'), 'int a;');
  });

  it('GET .../pipelines lists the request pipeline and the branch pipeline at its commits, newest first', async () => {
    const response = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/pipelines`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.list.map((pipeline) => [pipeline.source, pipeline.ref]), [['merge_request_event', `refs/merge-requests/${mergeRequest.iid}/head`], ['push', 'feature']]);
    assert.equal(response.headers['x-total'], '2');
    assert.match(String(response.list[0]?.web_url), /\/mr-team\/app\/-\/pipelines\/\d+$/);
    const missing = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/999/pipelines`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json, { message: '404 Merge Request Not Found' });
    const anonymous = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/pipelines`, { token: null });
    assert.equal(anonymous.status, 404);
  });

  it('POST .../pipelines creates one now (201, full entity), even with one at the head', async () => {
    const response = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/pipelines`);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.json.source, 'merge_request_event');
    assert.equal(response.json.ref, `refs/merge-requests/${mergeRequest.iid}/head`);
    assert.equal((response.json.user as { username: string }).username, 'root');
    assert.equal((await pipelinesOf(`refs/merge-requests/${mergeRequest.iid}/head`)).length, 2);
    assert.equal((await stores().mergeRequests.findByIid(project.id, mergeRequest.iid))?.head_pipeline_id, response.json.id);
    const anonymous = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/pipelines`, { token: null });
    assert.equal(anonymous.status, 401);
  });

  it('a CI file with no job for merge requests (a job without rules or only is not one): no pipeline, the branch pipeline becomes the head pipeline; POST answers 400', async () => {
    writeFileSync(path.join(cwd, '.gitlab-ci.yml'), 'branch-job:\n  script: make\n');
    await git('commit', '-am', 'no merge request jobs');
    await git('push', 'origin', 'feature');
    const head = await git('rev-parse', 'HEAD');
    const branch = await branchPipelineAt(head);
    mergeRequest = await refresh(mergeRequest, head);
    const ref = `refs/merge-requests/${mergeRequest.iid}/head`;
    await waitUntil(async () => (await stores().mergeRequests.findByIid(project.id, mergeRequest.iid))?.head_pipeline_id === branch.id, 'the branch pipeline as head pipeline');
    assert.equal((await pipelinesOf(ref)).filter((pipeline) => pipeline.sha === head).length, 0);
    const response = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/pipelines`);
    assert.equal(response.status, 400, response.text);
    assert.deepEqual(response.json, { message: { base: ['No stages / jobs for this pipeline.'] } });
  });

  it('POST for a request without commits answers 405', async () => {
    const main = await git('rev-parse', 'origin/main');
    const empty = await stores().mergeRequests.create(
      { project_id: project.id, source_project_id: project.id, source_branch: 'main', target_branch: 'feature', author_id: 1, title: 'Nothing', description: null, state: 'opened', created_at: new Date().toISOString(), head_sha: main, base_sha: main, start_sha: main },
      {},
    );
    const response = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests/${empty.iid}/pipelines`);
    assert.equal(response.status, 405, response.text);
    assert.deepEqual(response.json, { message: '405 Method Not Allowed' });
  });

  it("a fork's request: the fork's branch pipeline at the request's commit is listed on the target's request", async () => {
    const forked = await fixture.gantry.api('POST', `/projects/${project.id}/fork`, { body: { path: 'app-fork', name: 'app-fork' } });
    assert.equal(forked.status, 201, forked.text);
    const forkId = Number(forked.json.id);
    await waitUntil(async () => (await fixture.gantry.api('GET', `/projects/${forkId}`)).json.import_status !== 'started', 'the fork to finish');
    const body = { branch: 'fork-work', start_branch: 'main', commit_message: 'Work in the fork', actions: [{ action: 'create', file_path: 'src/fork.c', content: 'int fork;\n' }] };
    const commit = await fixture.gantry.api('POST', `/projects/${forkId}/repository/commits`, { body });
    assert.equal(commit.status, 201, commit.text);
    const opened = await fixture.gantry.api('POST', `/projects/${forkId}/merge_requests`, { body: { source_branch: 'fork-work', target_branch: 'main', title: 'From the fork', target_project_id: project.id } });
    assert.equal(opened.status, 201, opened.text);
    const url = `/projects/${project.id}/merge_requests/${String(opened.json.iid)}/pipelines`;
    let listed: Array<Record<string, unknown>> = [];
    await waitUntil(async () => (listed = (await fixture.gantry.api('GET', url)).list).some((pipeline) => pipeline.project_id === forkId), "the fork's branch pipeline on the request");
    const forkPipeline = listed.find((pipeline) => pipeline.project_id === forkId);
    assert.deepEqual([forkPipeline?.source, forkPipeline?.ref, forkPipeline?.sha], ['push', 'fork-work', commit.json.id]);
    assert.match(String(forkPipeline?.web_url), /\/root\/app-fork\/-\/pipelines\/\d+$/);
  });

  it("a merge request pipeline's child pipeline is one of the request's too (its ref, link and variables), listed under its parent only", async () => {
    await git('checkout', 'feature');
    writeFileSync(path.join(cwd, '.gitlab-ci.yml'), 'spawn:\n  trigger:\n    include: child.yml\n  rules:\n    - if: $CI_PIPELINE_SOURCE == "merge_request_event"\n    - if: $CI_COMMIT_BRANCH\n');
    writeFileSync(path.join(cwd, 'child.yml'), 'in-request:\n  script: echo $CI_MERGE_REQUEST_IID\n  rules: [{ if: $CI_MERGE_REQUEST_IID }]\non-branch:\n  script: echo branch\n  rules: [{ if: $CI_COMMIT_BRANCH }]\n');
    await git('add', '.');
    await git('commit', '-m', 'a child pipeline');
    await git('push', 'origin', 'feature');
    const head = await git('rev-parse', 'HEAD');
    let branch: PipelineRecord | undefined;
    await waitUntil(async () => (branch = (await pipelinesOf('feature')).find((pipeline) => pipeline.sha === head && pipeline.source === 'push')) !== undefined, 'the branch pipeline');
    mergeRequest = await refresh(mergeRequest, head);
    const ref = `refs/merge-requests/${mergeRequest.iid}/head`;
    // The push's own refresh of the request may make a second request pipeline at this head: the newest is the head pipeline.
    let parent: PipelineRecord | undefined;
    await waitUntil(async () => {
      const headPipelineId = (await stores().mergeRequests.findByIid(project.id, mergeRequest.iid))?.head_pipeline_id;
      parent = (await pipelinesOf(ref)).find((pipeline) => pipeline.id === headPipelineId && pipeline.sha === head && pipeline.source === 'merge_request_event');
      return parent !== undefined;
    }, 'a merge request pipeline at the head as head pipeline');
    const childOf = async (pipelineId: number): Promise<PipelineRecord | undefined> =>
      (await stores().pipelines.list({ projectId: project.id }, { offset: 0, limit: 100 })).items.find((pipeline) => pipeline.parent_pipeline_id === pipelineId);
    let child: PipelineRecord | undefined;
    await waitUntil(async () => (child = await childOf(parent!.id)) !== undefined, "the merge request pipeline's child");
    assert.equal(child?.failure_reason, null);
    assert.deepEqual([child?.source, child?.ref, child?.merge_request_id, child?.sha], ['parent_pipeline', ref, mergeRequest.id, head]);
    assert.deepEqual(await jobStatuses(child!.id), { 'in-request': 'pending' });
    let branchChild: PipelineRecord | undefined;
    await waitUntil(async () => (branchChild = await childOf(branch!.id)) !== undefined, "the branch pipeline's child");
    assert.deepEqual([branchChild?.ref, branchChild?.merge_request_id], ['feature', null]);
    assert.deepEqual(await jobStatuses(branchChild!.id), { 'on-branch': 'pending' });
    // The children are their parents' parts: not the request's pipelines, nor its head pipeline.
    const headPipeline = await stores().pipelines.findById((await stores().mergeRequests.findByIid(project.id, mergeRequest.iid))?.head_pipeline_id ?? 0);
    assert.equal(headPipeline?.source, 'merge_request_event');
    const listed = await fixture.gantry.api('GET', `/projects/${project.id}/merge_requests/${mergeRequest.iid}/pipelines`);
    assert.equal(listed.status, 200, listed.text);
    assert.ok(listed.list.some((pipeline) => pipeline.id === parent!.id));
    assert.ok(!listed.list.some((pipeline) => pipeline.source === 'parent_pipeline'), JSON.stringify(listed.list.map((pipeline) => pipeline.source)));
  });
});
