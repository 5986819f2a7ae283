import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { hookReceiver, type HookReceiver, type ReceivedHook } from './hooks-receiver.ts';

type Json = Record<string, unknown>;

describe('webhook events: issues, notes, merge requests, pipelines, jobs', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  const receivers: HookReceiver[] = [];

  const receiver = async () => {
    const made = await hookReceiver();
    receivers.push(made);
    return made;
  };
  const addHook = async (body: Json) => {
    const created = await gantry.api('POST', `/projects/${projectId}/hooks`, { body: { push_events: false, ...body } });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };
  const clearHooks = async () => {
    for (const hook of (await gantry.api('GET', `/projects/${projectId}/hooks?per_page=100`)).list) await gantry.api('DELETE', `/projects/${projectId}/hooks/${String(hook.id)}`);
  };
  const call = async (method: 'POST' | 'PUT', path: string, body: Json, status: number) => {
    const answer = await gantry.api(method, `/projects/${projectId}${path}`, { body });
    assert.equal(answer.status, status, answer.text);
    return answer.json;
  };
  const attributes = (request: ReceivedHook | undefined) => request!.body.object_attributes as Json;
  const kinds = (target: HookReceiver) => target.requests.map((request) => [request.headers['x-gitlab-event'], request.body.object_kind, attributes(request)?.action ?? null]);

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    const settings = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
    assert.equal(settings.status, 200, settings.text);
    const project = await gantry.api('POST', '/projects', { body: { name: 'events', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    projectId = Number(project.json.id);
  });
  after(async () => {
    for (const made of receivers) await made.close();
    await gantry.close();
  });

  it("sends issue events with GitLab's action and changes; confidential issues only to confidential hooks", async () => {
    await clearHooks();
    const issues = await receiver();
    const confidential = await receiver();
    await addHook({ url: issues.base, issues_events: true, token: 'issue-secret' });
    await addHook({ url: confidential.base, confidential_issues_events: true });
    const issue = await call('POST', '/issues', { title: 'Broken build', labels: 'bug' }, 201);
    await call('PUT', `/issues/${String(issue.iid)}`, { title: 'Broken build on main' }, 200);
    await call('PUT', `/issues/${String(issue.iid)}`, { state_event: 'close' }, 200);
    await call('PUT', `/issues/${String(issue.iid)}`, { state_event: 'reopen' }, 200);
    await call('POST', '/issues', { title: 'Secret', confidential: true }, 201);
    await waitUntil(() => issues.requests.length >= 4 && confidential.requests.length >= 1, 'the issue events');
    assert.deepEqual(kinds(issues), [['Issue Hook', 'issue', 'open'], ['Issue Hook', 'issue', 'update'], ['Issue Hook', 'issue', 'close'], ['Issue Hook', 'issue', 'reopen']]);
    assert.deepEqual(kinds(confidential), [['Confidential Issue Hook', 'issue', 'open']]);
    assert.equal(confidential.requests[0]!.body.event_type, 'confidential_issue');
    const [opened, renamed, closed] = issues.requests;
    assert.equal(opened!.headers['x-gitlab-token'], 'issue-secret');
    assert.deepEqual([attributes(opened).iid, attributes(opened).title, attributes(opened).state, attributes(opened).url], [issue.iid, 'Broken build', 'opened', `http://gantry.test/root/events/-/issues/${String(issue.iid)}`]);
    assert.deepEqual((opened!.body.labels as Json[]).map((label) => label.title), ['bug']);
    assert.deepEqual([(opened!.body.user as Json).username, (opened!.body.project as Json).path_with_namespace], ['root', 'root/events']);
    const changes = renamed!.body.changes as Record<string, Json>;
    assert.deepEqual(changes.title, { previous: 'Broken build', current: 'Broken build on main' });
    assert.deepEqual((closed!.body.changes as Record<string, Json>).state_id, { previous: 1, current: 2 });
    assert.equal(attributes(closed).state, 'closed');
  });

  it('sends note events for issues and merge requests; internal notes go to confidential note hooks', async () => {
    await clearHooks();
    const notes = await receiver();
    const confidentialNotes = await receiver();
    await addHook({ url: notes.base, note_events: true });
    await addHook({ url: confidentialNotes.base, confidential_note_events: true });
    const issue = await call('POST', '/issues', { title: 'Discuss' }, 201);
    await call('POST', `/issues/${String(issue.iid)}/notes`, { body: 'First comment' }, 201);
    await call('POST', `/issues/${String(issue.iid)}/notes`, { body: 'Between us', internal: true }, 201);
    await call('POST', '/repository/branches', { branch: 'notes-topic', ref: 'main' }, 201);
    const mergeRequest = await call('POST', '/merge_requests', { source_branch: 'notes-topic', target_branch: 'main', title: 'Talk about it' }, 201);
    await call('POST', `/merge_requests/${String(mergeRequest.iid)}/notes`, { body: 'Looks good' }, 201);
    await waitUntil(() => notes.requests.length >= 2 && confidentialNotes.requests.length >= 1, 'the note events');
    assert.deepEqual(kinds(notes), [['Note Hook', 'note', 'create'], ['Note Hook', 'note', 'create']]);
    const [onIssue, onMergeRequest] = notes.requests;
    assert.deepEqual([attributes(onIssue).note, attributes(onIssue).noteable_type, (onIssue!.body.issue as Json).iid], ['First comment', 'Issue', issue.iid]);
    assert.match(String(attributes(onIssue).url), new RegExp(`/root/events/-/issues/${String(issue.iid)}#note_\\d+$`));
    assert.deepEqual([attributes(onMergeRequest).note, attributes(onMergeRequest).noteable_type, (onMergeRequest!.body.merge_request as Json).iid], ['Looks good', 'MergeRequest', mergeRequest.iid]);
    assert.deepEqual(kinds(confidentialNotes), [['Confidential Note Hook', 'note', 'create']]);
    assert.deepEqual([confidentialNotes.requests[0]!.body.event_type, attributes(confidentialNotes.requests[0]).note], ['confidential_note', 'Between us']);
  });

  it('sends a note event with action update when a note is edited (not when its text stays the same)', async () => {
    await clearHooks();
    const notes = await receiver();
    await addHook({ url: notes.base, note_events: true });
    const issue = await call('POST', '/issues', { title: 'Edited talk' }, 201);
    const note = await call('POST', `/issues/${String(issue.iid)}/notes`, { body: 'Frist' }, 201);
    await call('PUT', `/issues/${String(issue.iid)}/notes/${String(note.id)}`, { body: 'First' }, 200);
    await call('PUT', `/issues/${String(issue.iid)}/notes/${String(note.id)}`, { body: 'First' }, 200);
    await call('POST', '/repository/branches', { branch: 'edited-topic', ref: 'main' }, 201);
    const mergeRequest = await call('POST', '/merge_requests', { source_branch: 'edited-topic', target_branch: 'main', title: 'Edited review' }, 201);
    const review = await call('POST', `/merge_requests/${String(mergeRequest.iid)}/notes`, { body: 'LGTM' }, 201);
    await call('PUT', `/merge_requests/${String(mergeRequest.iid)}/notes/${String(review.id)}`, { body: 'LGTM, thanks' }, 200);
    await waitUntil(() => notes.requests.length >= 4, 'the note events');
    assert.deepEqual(kinds(notes), [['Note Hook', 'note', 'create'], ['Note Hook', 'note', 'update'], ['Note Hook', 'note', 'create'], ['Note Hook', 'note', 'update']]);
    const [, edited, , editedReview] = notes.requests;
    assert.deepEqual([attributes(edited).id, attributes(edited).note, attributes(edited).updated_by_id, (edited!.body.issue as Json).iid], [note.id, 'First', 1, issue.iid]);
    assert.deepEqual([attributes(editedReview).note, (editedReview!.body.merge_request as Json).iid], ['LGTM, thanks', mergeRequest.iid]);
  });

  it('sends merge request events: open, update with changes, close, reopen, merge', async () => {
    await clearHooks();
    const target = await receiver();
    await addHook({ url: target.base, merge_requests_events: true });
    await call('POST', '/repository/branches', { branch: 'topic', ref: 'main' }, 201);
    await call('POST', '/repository/commits', { branch: 'topic', commit_message: 'topic change', actions: [{ action: 'create', file_path: 'topic.txt', content: 'topic\n' }] }, 201);
    const mergeRequest = await call('POST', '/merge_requests', { source_branch: 'topic', target_branch: 'main', title: 'Add topic' }, 201);
    const iid = String(mergeRequest.iid);
    await call('PUT', `/merge_requests/${iid}`, { title: 'Add the topic' }, 200);
    await call('PUT', `/merge_requests/${iid}`, { state_event: 'close' }, 200);
    await call('PUT', `/merge_requests/${iid}`, { state_event: 'reopen' }, 200);
    await waitUntil(async () => (await gantry.api('GET', `/projects/${projectId}/merge_requests/${iid}`)).json.merge_status === 'can_be_merged', 'the merge status check');
    await call('PUT', `/merge_requests/${iid}/merge`, {}, 200);
    await waitUntil(() => target.requests.some((request) => attributes(request).action === 'merge'), 'the merge event');
    assert.ok(kinds(target).every(([header, kind]) => header === 'Merge Request Hook' && kind === 'merge_request'), JSON.stringify(kinds(target)));
    const sequence = target.requests.map((request) => attributes(request).action);
    assert.deepEqual(sequence.filter((action) => action !== 'update'), ['open', 'close', 'reopen', 'merge']);
    const renamed = target.requests.find((request) => (request.body.changes as Json).title !== undefined);
    assert.deepEqual((renamed!.body.changes as Json).title, { previous: 'Add topic', current: 'Add the topic' });
    const merged = target.requests.at(-1)!;
    assert.deepEqual([attributes(merged).state, attributes(merged).source_branch, attributes(merged).target_branch, attributes(merged).iid], ['merged', 'topic', 'main', mergeRequest.iid]);
    const closed = target.requests.find((request) => attributes(request).action === 'close');
    assert.deepEqual([attributes(closed).detailed_merge_status, attributes(merged).detailed_merge_status], ['not_open', 'not_open'], 'GitLab\'s detailed status, not the merge check\'s');
    assert.equal((attributes(merged).target as Json).path_with_namespace, 'root/events');
  });

  it('says in a merge request event whether unresolved threads block it, as the API does', async () => {
    await clearHooks();
    const target = await receiver();
    await addHook({ url: target.base, merge_requests_events: true });
    await gantry.api('PUT', `/projects/${projectId}`, { body: { only_allow_merge_if_all_discussions_are_resolved: true } });
    try {
      await call('POST', '/repository/branches', { branch: 'threads', ref: 'main' }, 201);
      await call('POST', '/repository/commits', { branch: 'threads', commit_message: 'threads change', actions: [{ action: 'create', file_path: 'threads.txt', content: 'threads\n' }] }, 201);
      const iid = String((await call('POST', '/merge_requests', { source_branch: 'threads', target_branch: 'main', title: 'Talk first' }, 201)).iid);
      const thread = await call('POST', `/merge_requests/${iid}/discussions`, { body: 'Why?' }, 201);
      await waitUntil(async () => (await gantry.api('GET', `/projects/${projectId}/merge_requests/${iid}`)).json.merge_status === 'can_be_merged', 'the merge status check');
      const edited = async (title: string) => {
        await call('PUT', `/merge_requests/${iid}`, { title }, 200);
        await waitUntil(() => target.requests.some((request) => attributes(request).title === title), `the event of ${title}`);
        const event = target.requests.find((request) => attributes(request).title === title);
        const api = (await gantry.api('GET', `/projects/${projectId}/merge_requests/${iid}`)).json;
        return { hook: [attributes(event).blocking_discussions_resolved, attributes(event).detailed_merge_status], api: [api.blocking_discussions_resolved, api.detailed_merge_status] };
      };
      const blocked = await edited('Talk first, then merge');
      assert.deepEqual(blocked.hook, [false, 'discussions_not_resolved']);
      assert.deepEqual(blocked.hook, blocked.api);
      await call('PUT', `/merge_requests/${iid}/discussions/${String(thread.id)}`, { resolved: true }, 200);
      const resolved = await edited('Talked, merge');
      assert.deepEqual(resolved.hook, [true, 'mergeable']);
      assert.deepEqual(resolved.hook, resolved.api);
      const draft = await edited('Draft: talked, merge later');
      assert.deepEqual(draft.hook, [true, 'draft_status']);
    } finally {
      await gantry.api('PUT', `/projects/${projectId}`, { body: { only_allow_merge_if_all_discussions_are_resolved: false } });
    }
  });

  it('sends job and pipeline events as their statuses change', async () => {
    await clearHooks();
    const target = await receiver();
    await addHook({ url: target.base, job_events: true, pipeline_events: true });
    await call('POST', '/repository/commits', { branch: 'main', commit_message: 'add CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'build:\n  script: [echo hi]\n' }] }, 201);
    let pipelineId = 0;
    await waitUntil(async () => {
      const [pipeline] = (await gantry.api('GET', `/projects/${projectId}/pipelines`)).list;
      pipelineId = Number(pipeline?.id ?? 0);
      return pipeline?.status === 'pending';
    }, 'the pending pipeline');
    await call('POST', `/pipelines/${pipelineId}/cancel`, {}, 200);
    const pipelineStatuses = () => target.requests.filter((request) => request.body.object_kind === 'pipeline').map((request) => attributes(request).status);
    const jobStatuses = () => target.requests.filter((request) => request.body.object_kind === 'build').map((request) => request.body.build_status);
    await waitUntil(() => pipelineStatuses().includes('canceled') && jobStatuses().includes('canceled'), 'the canceled events');
    assert.deepEqual(pipelineStatuses(), ['pending', 'canceled']);
    assert.deepEqual(jobStatuses(), ['created', 'pending', 'canceled'], 'the job as created, then each status it moved to');
    const pipelineHook = target.requests.filter((request) => request.body.object_kind === 'pipeline').at(-1)!;
    assert.equal(pipelineHook.headers['x-gitlab-event'], 'Pipeline Hook');
    assert.deepEqual([attributes(pipelineHook).id, attributes(pipelineHook).ref, attributes(pipelineHook).stages], [pipelineId, 'main', ['test']]);
    assert.deepEqual((pipelineHook.body.builds as Json[]).map((build) => [build.name, build.status]), [['build', 'canceled']]);
    assert.equal((pipelineHook.body.commit as Json).title, 'add CI');
    const jobHook = target.requests.filter((request) => request.body.object_kind === 'build').at(-1)!;
    assert.equal(jobHook.headers['x-gitlab-event'], 'Job Hook');
    assert.deepEqual([jobHook.body.build_name, jobHook.body.build_stage, jobHook.body.pipeline_id, jobHook.body.ref, (jobHook.body.commit as Json).message], ['build', 'test', pipelineId, 'main', 'add CI']);
  });
  it('sends the job waiting for its resource_group, then pending once the group assigned it the resource', async () => {
    await clearHooks();
    const target = await receiver();
    await addHook({ url: target.base, job_events: true, pipeline_events: true });
    const ci = 'deploy:\n  script: [echo hi]\n  resource_group: production\n';
    await call('POST', '/repository/commits', { branch: 'main', commit_message: 'deploy one at a time', actions: [{ action: 'update', file_path: '.gitlab-ci.yml', content: ci }] }, 201);
    const pipelineStatuses = () => target.requests.filter((request) => request.body.object_kind === 'pipeline').map((request) => attributes(request).status);
    const jobStatuses = () => target.requests.filter((request) => request.body.object_kind === 'build').map((request) => request.body.build_status);
    await waitUntil(() => jobStatuses().includes('pending') && pipelineStatuses().includes('pending'), 'the pending events');
    assert.deepEqual(jobStatuses(), ['created', 'waiting_for_resource', 'pending']);
    assert.deepEqual(pipelineStatuses(), ['waiting_for_resource', 'pending']);
  });
});
