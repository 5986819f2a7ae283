import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { DELIVER_TASK } from '../../src/coordinator/services/integrations/outbound-deliveries.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { integrationReceiver as receiver } from './integrations-receiver.ts';

type Json = Record<string, unknown>;

describe('outbound integrations hear merge request, issue and note events, from the payload the webhooks use', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let web: string;
  let fullName: string;
  let userName: string;
  const servers: Server[] = [];
  const deliveryTasks = () => gantry.coordinator.context.db.selectFrom('tasks').select(['kind']).where('kind', '=', DELIVER_TASK).execute();
  const everyDeliveryDone = () => waitUntil(async () => (await deliveryTasks()).length === 0, 'every delivery task to complete');
  const call = async (method: 'POST' | 'PUT', path: string, body: Json, status: number) => {
    const answer = await gantry.api(method, `/projects/${projectId}${path}`, { body });
    assert.equal(answer.status, status, answer.text);
    return answer.json;
  };
  const listen = async (answer?: Parameters<typeof receiver>[0]) => {
    const made = await receiver(answer);
    servers.push(made.server);
    return made;
  };

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
    const settings = await gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
    assert.equal(settings.status, 200, settings.text);
    const project = await gantry.api('POST', '/projects', { body: { name: 'events', initialize_with_readme: true } });
    assert.equal(project.status, 201, project.text);
    projectId = Number(project.json.id);
    web = String(project.json.web_url);
    fullName = String(project.json.name_with_namespace);
    userName = String((await gantry.api('GET', '/user')).json.name);
  });
  after(async () => {
    for (const server of servers) server.close();
    await gantry.close();
  });

  it('chat C posts GitLab\'s issue and note messages; an edit sends none; drone, taking merge requests only, gets no task for an issue', async () => {
    const hipchat = await listen();
    const drone = await listen();
    await call('PUT', '/services/hipchat', { token: 't', room: 'dev', server: hipchat.base }, 200);
    await call('PUT', '/services/drone-ci', { drone_url: drone.base, token: 'drone-token' }, 200);
    const issue = await call('POST', '/issues', { title: 'Crash <on> start\nsecond line', description: 'Steps & more' }, 201);
    await call('PUT', `/issues/${String(issue.iid)}`, { title: 'Crash on start' }, 200);
    await call('POST', `/issues/${String(issue.iid)}/notes`, { body: 'Seen it too' }, 201);
    await waitUntil(() => hipchat.requests.length === 2, 'the issue and the note messages');
    await everyDeliveryDone();
    const messages = hipchat.requests.map((request) => (JSON.parse(request.body) as { message: string }).message);
    const project = `<a href="${web}">${fullName.replace(/\s/g, '')}</a>`;
    assert.equal(messages[0], `${userName} opened <a href="${web}/-/issues/1">issue #1</a> in ${project}: <b>Crash &lt;on&gt; start</b><pre>Steps &amp; more</pre>`);
    assert.match(messages[1] ?? '', new RegExp(`^${userName} commented on <a href="${web}/-/issues/1#note_\\d+">issue #1</a> in .*: <b>Crash on start</b><pre>Seen it too</pre>$`));
    assert.equal(drone.requests.length, 0, 'drone hears no issue event');
    await call('PUT', '/services/hipchat', { token: 't', room: 'dev', server: hipchat.base, issues_events: false, note_events: false }, 200);
    await call('POST', '/issues', { title: 'Not announced' }, 201);
    assert.equal((await deliveryTasks()).length, 0, 'an event no integration takes records no task');
  });

  it('drone gets the merge request hook of an opened request, as a service hook, beside the pushes', async () => {
    const drone = await listen();
    await call('PUT', '/services/drone-ci', { drone_url: drone.base, token: 'drone-token' }, 200);
    await call('POST', '/repository/branches', { branch: 'topic', ref: 'main' }, 201);
    await call('POST', '/repository/commits', { branch: 'topic', commit_message: 'topic change', actions: [{ action: 'create', file_path: 'topic.txt', content: 'topic\n' }] }, 201);
    await call('POST', '/merge_requests', { source_branch: 'topic', target_branch: 'main', title: 'Add topic' }, 201);
    const mergeRequestHooks = () => drone.requests.filter((request) => (JSON.parse(request.body) as Json).object_kind === 'merge_request');
    await waitUntil(() => mergeRequestHooks().length >= 1, 'the merge request hook');
    assert.ok(drone.requests.some((request) => (JSON.parse(request.body) as Json).object_kind === 'push'), 'the branch\'s creation and commit are pushes');
    const [hook] = mergeRequestHooks();
    assert.equal(hook?.headers['x-gitlab-event'], 'Service Hook');
    assert.match(hook?.url ?? '', /^\/hook\?owner=[^&]+&name=events&access_token=drone-token$/);
    const data = JSON.parse(hook?.body ?? '{}') as { object_kind: string; object_attributes: Json };
    assert.deepEqual([data.object_kind, data.object_attributes.action, data.object_attributes.state], ['merge_request', 'open', 'opened']);
    await everyDeliveryDone();
    await gantry.api('DELETE', `/projects/${projectId}/services/drone-ci`);
  });

  it('Jira comments on the issues a merge request names and, merged into the default branch, closes those it closes', async () => {
    const comments = new Map<string, string[]>([['OPS-7', []]]);
    const resolved = new Set<string>();
    const jira = await listen((request) => {
      const match = /^\/rest\/api\/2\/issue\/([A-Z0-9-]+)(\/comment|\/transitions)?(\?.*)?$/.exec(request.url);
      const issueComments = comments.get(match?.[1] ?? '');
      if (!match?.[1] || !issueComments) return { status: 404 };
      if (match[2] === '/comment' && request.method === 'GET') return { status: 200, body: JSON.stringify({ comments: issueComments.map((body) => ({ body })) }) };
      if (match[2] === '/comment') {
        issueComments.push((JSON.parse(request.body) as { body: string }).body);
        return { status: 201, body: '{}' };
      }
      if (match[2] === '/transitions') {
        resolved.add(match[1]);
        return { status: 204 };
      }
      return { status: 200, body: JSON.stringify({ fields: { resolution: resolved.has(match[1]) ? { name: 'Done' } : null } }) };
    });
    await call('PUT', '/services/jira', { url: jira.base, project_key: 'OPS', username: 'u', password: 'p' }, 200);
    await call('POST', '/repository/branches', { branch: 'fix', ref: 'main' }, 201);
    await call('POST', '/repository/commits', { branch: 'fix', commit_message: 'fix it', actions: [{ action: 'create', file_path: 'fix.txt', content: 'fix\n' }] }, 201);
    const mergeRequest = await call('POST', '/merge_requests', { source_branch: 'fix', target_branch: 'main', title: 'Fix the outage', description: 'Closes OPS-7' }, 201);
    await waitUntil(() => comments.get('OPS-7')!.length === 1, 'the mention');
    const user = (await gantry.api('GET', '/user')).json;
    assert.equal(comments.get('OPS-7')?.[0], `[${userName}|http://gantry.test/${String(user.username)}] mentioned this issue in [a merge request of ${fullName}|${web}/-/merge_requests/${String(mergeRequest.iid)}]:\n'Fix the outage'`);
    await waitUntil(async () => (await gantry.api('GET', `/projects/${projectId}/merge_requests/${String(mergeRequest.iid)}`)).json.merge_status === 'can_be_merged', 'the merge status check');
    const merged = await call('PUT', `/merge_requests/${String(mergeRequest.iid)}/merge`, {}, 200);
    await waitUntil(() => resolved.has('OPS-7') && comments.get('OPS-7')!.length === 2, 'the transition and the solved comment');
    const head = String((merged.diff_refs as Json | undefined)?.head_sha ?? merged.sha);
    assert.equal(comments.get('OPS-7')?.[1], `Issue solved with [${head}|${web}/-/commit/${head}].`);
    await everyDeliveryDone();
  });
  it('chat C announces a failed pipeline in red, and not a successful one', async () => {
    const hipchat = await listen();
    await call('PUT', '/services/hipchat', { token: 't', room: 'dev', server: hipchat.base, color: 'purple', issues_events: false, note_events: false, merge_requests_events: false, push_events: false }, 200);
    const sha = String((await gantry.api('GET', `/projects/${projectId}/repository/commits/main`)).json.id);
    await call('POST', `/statuses/${sha}`, { state: 'success', name: 'lint', ref: 'main' }, 201);
    await everyDeliveryDone();
    const failed = await call('POST', `/statuses/${sha}`, { state: 'failed', name: 'review', ref: 'main' }, 201);
    const pipelineId = String(failed.pipeline_id ?? '');
    await waitUntil(() => hipchat.requests.length === 1, 'the failed pipeline message');
    await everyDeliveryDone();
    const body = JSON.parse(hipchat.requests[0]!.body) as { message: string; color: string };
    assert.equal(body.color, 'red');
    assert.match(body.message, new RegExp(`^<a href="${web}">[^<]+</a>: Pipeline <a href="${web}/-/pipelines/${pipelineId}">#${pipelineId}</a> of <a href="${web}/-/commits/main">main</a> branch by ${userName} failed in \\S* second\\(s\\)$`));
    assert.equal(hipchat.requests.length, 1, 'the successful status before sent nothing');
  });
});
