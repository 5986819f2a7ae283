import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { within } from '../helpers/bounded.ts';
import { startCiSettingsFixture, type CiSettingsFixture } from './ci-settings-fixtures.ts';
import { makeProject } from './groups-fixtures.ts';

describe('issues API', () => {
  let fx: CiSettingsFixture;
  let milestoneId: number;
  const url = (suffix = '') => `/projects/${fx.project.id}/issues${suffix}`;
  const iids = (list: Array<Record<string, unknown>>) => list.map((issue) => issue.iid);

  before(async () => {
    fx = await startCiSettingsFixture();
    milestoneId = Number((await fx.gantry.api('POST', `/projects/${fx.project.id}/milestones`, { body: { title: 'v1' } })).json.id);
    await fx.gantry.api('POST', `/projects/${fx.project.id}/labels`, { body: { name: 'bug', color: 'red' } });
  });
  after(() => fx.close());

  it('opens an issue with labels (unknown ones created), a milestone and an assignee (201), GitLab-shaped', async () => {
    const body = { title: 'Crash', description: '- [x] find\n- [ ] fix', labels: 'bug,new one', milestone_id: milestoneId, assignee_ids: [fx.developer.id], due_date: '2030-01-02' };
    const created = await fx.gantry.api('POST', url(), { body, token: fx.reporter.token });
    assert.equal(created.status, 201, created.text);
    const issue = created.json;
    assert.deepEqual(
      [issue.iid, issue.state, issue.labels, (issue.milestone as Record<string, unknown>).title, (issue.author as Record<string, unknown>).username, issue.due_date],
      [1, 'opened', ['bug', 'new one'], 'v1', fx.reporter.username, '2030-01-02'],
    );
    assert.deepEqual((issue.assignees as Array<Record<string, unknown>>).map((user) => user.id), [fx.developer.id]);
    assert.equal((issue.assignee as Record<string, unknown>).id, fx.developer.id);
    assert.deepEqual([issue.has_tasks, issue.task_completion_status], [true, { count: 2, completed_count: 1 }]);
    assert.deepEqual(issue.time_stats, { time_estimate: 0, total_time_spent: 0, human_time_estimate: null, human_total_time_spent: null });
    // The author takes part in the issue, so is subscribed to it (GitLab's participants rule).
    assert.deepEqual([issue.confidential, issue.discussion_locked, issue.subscribed, issue.upvotes, issue.user_notes_count], [false, null, true, 0, 0]);
    assert.equal(issue.web_url, 'http://gantry.test/ci/app/-/issues/1');
    assert.deepEqual(issue._links, {
      self: `http://gantry.test/api/v4/projects/${fx.project.id}/issues/1`, notes: `http://gantry.test/api/v4/projects/${fx.project.id}/issues/1/notes`,
      award_emoji: `http://gantry.test/api/v4/projects/${fx.project.id}/issues/1/award_emoji`, project: `http://gantry.test/api/v4/projects/${fx.project.id}`,
    });
    assert.deepEqual(issue.references, { short: '#1', relative: '#1', full: 'ci/app#1' });
    assert.deepEqual([issue.type, issue.issue_type, issue.severity, issue.task_status, issue.merge_requests_count], ['ISSUE', 'issue', 'UNKNOWN', '1 of 2 checklist items completed', 0]);
    assert.equal((issue.milestone as Record<string, unknown>).expired, false);
    const listed = (await fx.gantry.api('GET', url())).list.find((item) => item.iid === 1)!;
    assert.deepEqual([listed.references, listed.type, listed.task_status, '_links' in listed, 'subscribed' in listed], [issue.references, 'ISSUE', '1 of 2 checklist items completed', false, false]);
    const made = await fx.gantry.api('GET', `/projects/${fx.project.id}/labels/${encodeURIComponent('new one')}`);
    assert.deepEqual([made.status, made.json.color], [200, '#428BCA']);
  });

  it('ignores labels, milestones and assignees from Guests, and a milestone of another project', async () => {
    const guest = await fx.gantry.api('POST', url(), { body: { title: 'Guest', labels: 'bug', milestone_id: milestoneId, assignee_ids: [fx.developer.id] }, token: fx.guest.token });
    assert.deepEqual([guest.status, guest.json.labels, guest.json.milestone, guest.json.assignees], [201, [], null, []]);
    const other = await makeProject(fx.gantry, fx.group.id, 'other');
    const foreign = Number((await fx.gantry.api('POST', `/projects/${other.id}/milestones`, { body: { title: 'theirs' } })).json.id);
    const ignored = await fx.gantry.api('POST', url(), { body: { title: 'Foreign', milestone_id: foreign } });
    assert.deepEqual([ignored.status, ignored.json.milestone, ignored.json.iid], [201, null, 3]);
  });

  it('needs a signed-in caller everywhere, and refuses strangers, bad parameters and unknown iids', async () => {
    for (const [method, path] of [['GET', '/issues'], ['GET', url()], ['GET', url('/1')], ['POST', url()], ['GET', `/groups/${fx.group.id}/issues`]] as const) {
      const anonymous = await fx.gantry.api(method, path, { token: null, body: method === 'POST' ? { title: 'x' } : undefined });
      assert.deepEqual([anonymous.status, anonymous.json], [401, { message: '401 Unauthorized' }], path);
    }
    assert.deepEqual((await fx.gantry.api('GET', url(), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
    assert.deepEqual((await fx.gantry.api('GET', url('/99'))).json, { message: '404 Issue Not Found' });
    assert.deepEqual((await fx.gantry.api('POST', url(), { body: {} })).json, { error: 'title is missing' });
    assert.deepEqual((await fx.gantry.api('PUT', url('/1'), { body: { state_event: 'shut' } })).json, { error: 'state_event does not have a valid value' });
    assert.deepEqual((await fx.gantry.api('GET', url('?assignee_id=someone'))).json, { error: 'assignee_id is invalid' });
    assert.deepEqual((await fx.gantry.api('GET', url('?state=gone'))).json, { error: 'state does not have a valid value' });
    const empty = await fx.gantry.api('PUT', url('/1'), { body: {} });
    assert.equal(empty.status, 400);
  });

  it('filters project lists: state, labels (AND, None, Any), milestone, assignee, author, iids, search, order', async () => {
    await fx.gantry.api('POST', url(), { body: { title: 'Feature', labels: 'new one', description: 'needle here' } });
    const get = async (query: string) => iids((await fx.gantry.api('GET', url(query), { token: fx.reporter.token })).list);
    assert.deepEqual(await get(''), [4, 3, 2, 1]);
    assert.deepEqual(await get('?labels=bug,new%20one'), [1]);
    assert.deepEqual(await get('?labels=new%20one'), [4, 1]);
    assert.deepEqual(await get('?labels=None'), [3, 2]);
    assert.deepEqual(await get('?labels=Any'), [4, 1]);
    assert.deepEqual(await get('?milestone=v1'), [1]);
    assert.deepEqual(await get('?milestone=None'), [4, 3, 2]);
    assert.deepEqual(await get(`?assignee_id=${fx.developer.id}`), [1]);
    assert.deepEqual(await get('?assignee_id=None'), [4, 3, 2]);
    assert.deepEqual(await get(`?author_id=${fx.guest.id}`), [2]);
    assert.deepEqual(await get(`?author_username=${fx.guest.username}`), [2]);
    assert.deepEqual(await get(`?assignee_username=${fx.developer.username}`), [1]);
    assert.deepEqual(await get(`?assignee_username[]=${fx.developer.username}`), [1]);
    assert.deepEqual(await get('?author_username=nobody-at-all'), []);
    const both = await fx.gantry.api('GET', url(`?author_id=${fx.guest.id}&author_username=${fx.guest.username}`));
    assert.deepEqual([both.status, both.json], [400, { error: 'author_id, author_username are mutually exclusive' }]);
    assert.deepEqual(await get('?iids[]=1&iids[]=4'), [4, 1]);
    assert.deepEqual(await get('?search=NEEDLE'), [4]);
    assert.deepEqual(await get('?search=FIX%20find'), [1], 'every word, in any order (GitLab fuzzy search)');
    assert.deepEqual(await get('?search=ab'), [], 'a short query matches only a whole title or description');
    assert.deepEqual(await get('?sort=asc&per_page=2'), [1, 2]);
    assert.deepEqual(await get('?created_after=2999-01-01T00:00:00Z'), []);
    assert.deepEqual(await get('?my_reaction_emoji=thumbsup'), []);
    assert.deepEqual(await get('?scope=created_by_me'), [1]);
    const mine = await fx.gantry.api('GET', '/issues', { token: fx.guest.token });
    assert.deepEqual(iids(mine.list), [2]);
    const asGuest = async (query: string) => iids((await fx.gantry.api('GET', `/issues${query}`, { token: fx.guest.token })).list);
    assert.deepEqual(await asGuest(`?author_id=${fx.guest.id}`), [2]);
    assert.deepEqual(await asGuest(`?author_id=${fx.reporter.id}`), [], 'created_by_me (the default) and another author_id: both apply');
    assert.deepEqual(await asGuest(`?author_id=${fx.reporter.id}&scope=all`), [1]);
    assert.deepEqual(await asGuest(`?scope=assigned_to_me&assignee_id=${fx.developer.id}`), []);
    assert.deepEqual(iids((await fx.gantry.api('GET', '/issues?scope=assigned_to_me&assignee_id=Any', { token: fx.developer.token })).list), [1]);
    const milestoneIssues = await fx.gantry.api('GET', `/projects/${fx.project.id}/milestones/${milestoneId}/issues`);
    assert.deepEqual(iids(milestoneIssues.list), [1]);
  });

  it('shows a confidential issue only to Reporters and up, its author and its assignee, in every list and count', async () => {
    const secret = await fx.gantry.api('POST', url(), { body: { title: 'Secret', confidential: true, labels: 'bug' }, token: fx.guest.token });
    assert.equal(secret.status, 201);
    const iid = Number(secret.json.iid);
    await fx.gantry.api('PUT', url(`/${iid}`), { body: { assignee_ids: [fx.developer.id], labels: 'bug' } });
    const other = await fx.gantry.createUser('planner-guest');
    await fx.gantry.api('POST', `/projects/${fx.project.id}/members`, { body: { user_id: other.id, access_level: 10 } });
    for (const [who, token, sees] of [['author', fx.guest.token, true], ['assignee', fx.developer.token, true], ['reporter', fx.reporter.token, true], ['other guest', other.token, false]] as const) {
      const lists = [url(), `/groups/${fx.group.id}/issues`, '/issues?scope=all', url('?confidential=true'), url('?search=Secret')];
      for (const path of lists) {
        const listed = iids((await fx.gantry.api('GET', path, { token })).list).includes(iid);
        assert.equal(listed, sees, `${who} ${path}`);
      }
      assert.equal((await fx.gantry.api('GET', url(`/${iid}`), { token })).status, sees ? 200 : 404, who);
      const counts = (await fx.gantry.api('GET', `/projects/${fx.project.id}/labels?with_counts=true&search=bug`, { token })).list[0]!;
      assert.equal(counts.open_issues_count, sees ? 2 : 1, who);
    }
  });

  it('edits: state_event close and reopen, labels/add_labels/remove_labels, milestone and assignee removal, lock', async () => {
    const closed = await fx.gantry.api('PUT', url('/1'), { body: { state_event: 'close', add_labels: 'extra', remove_labels: 'bug' }, token: fx.reporter.token });
    assert.deepEqual([closed.status, closed.json.state, closed.json.labels, (closed.json.closed_by as Record<string, unknown>).id], [200, 'closed', ['extra', 'new one'], fx.reporter.id]);
    assert.match(String(closed.json.closed_at), /^\d{4}-/);
    assert.deepEqual(iids((await fx.gantry.api('GET', url('?state=closed'))).list), [1]);
    const reopened = await fx.gantry.api('PUT', url('/1'), { body: { state_event: 'reopen', labels: 'bug', milestone_id: 0, assignee_ids: [], discussion_locked: true } });
    assert.deepEqual([reopened.json.state, reopened.json.closed_at, reopened.json.closed_by, reopened.json.labels], ['opened', null, null, ['bug']]);
    assert.deepEqual([reopened.json.milestone, reopened.json.assignees, reopened.json.discussion_locked], [null, [], true]);
    const byAuthor = await fx.gantry.api('PUT', url('/2'), { body: { title: 'Guest, renamed', labels: 'bug' }, token: fx.guest.token });
    assert.deepEqual([byAuthor.status, byAuthor.json.title, byAuthor.json.labels], [200, 'Guest, renamed', []]);
    const notTheirs = await fx.gantry.api('PUT', url('/1'), { body: { title: 'mine now' }, token: fx.guest.token });
    assert.equal(notTheirs.status, 403);
    for (const title of ['', '   ']) {
      const blank = await fx.gantry.api('PUT', url('/2'), { body: { title, state_event: 'close' } });
      assert.deepEqual([blank.status, blank.json], [400, { message: { title: ["can't be blank"] } }]);
    }
    const kept = await fx.gantry.api('GET', url('/2'));
    assert.deepEqual([kept.json.title, kept.json.state], ['Guest, renamed', 'opened'], 'a refused edit changes nothing');
  });

  it('lets only Owners and administrators delete', async () => {
    assert.equal((await fx.gantry.api('DELETE', url('/3'), { token: fx.maintainer.token })).status, 403);
    assert.equal((await fx.gantry.api('DELETE', url('/3'))).status, 204);
    assert.equal((await fx.gantry.api('GET', url('/3'))).status, 404);
  });

  it('numbers 20 concurrent creations through the API 1..20 in a fresh project', async () => {
    const project = await makeProject(fx.gantry, fx.group.id, 'busy');
    const created = await within(
      Promise.all(Array.from({ length: 20 }, (_, n) => fx.gantry.api('POST', `/projects/${project.id}/issues`, { body: { title: `n${n}`, labels: 'same' } }))),
      60_000,
      '20 issue creations',
    );
    assert.deepEqual(created.map((response) => response.status), Array.from({ length: 20 }, () => 201));
    assert.deepEqual(created.map((response) => Number(response.json.iid)).sort((a, b) => a - b), Array.from({ length: 20 }, (_, n) => n + 1));
  });
});

describe('issue list filters GitLab takes: not[...], in, labels[], with_labels_details, milestone_id, due_date, issue_type', () => {
  let fx: CiSettingsFixture;
  let projectId: number;
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const iids = (list: Array<Record<string, unknown>>) => list.map((issue) => issue.iid);

  before(async () => {
    fx = await startCiSettingsFixture();
    projectId = (await makeProject(fx.gantry, fx.group.id, 'filters')).id;
    const milestone = async (body: Record<string, unknown>) => Number((await fx.gantry.api('POST', `/projects/${projectId}/milestones`, { body })).json.id);
    const soon = await milestone({ title: 'soon', start_date: day(-3), due_date: day(5) });
    const later = await milestone({ title: 'later', start_date: day(2), due_date: day(30) });
    const open = async (body: Record<string, unknown>) => assert.equal((await fx.gantry.api('POST', `/projects/${projectId}/issues`, { body })).status, 201);
    await open({ title: 'alpha bug!', labels: 'bug', milestone_id: soon, due_date: day(0) });
    await open({ title: 'Feature', description: 'the alpha release', labels: 'feat', milestone_id: later, due_date: day(-2), assignee_ids: [1] });
    await open({ title: 'Both', labels: 'bug,feat', due_date: day(1) });
    await open({ title: 'Plain', description: 'nothing' });
  });
  after(() => fx.close());

  const get = async (query: string) => {
    const answer = await fx.gantry.api('GET', `/projects/${projectId}/issues${query}`);
    assert.equal(answer.status, 200, answer.text);
    return iids(answer.list);
  };

  it('leaves out what not[...] names', async () => {
    assert.deepEqual(await get('?not[labels]=bug'), [4, 2]);
    assert.deepEqual(await get('?not[labels]=bug,feat'), [4]);
    assert.deepEqual(await get('?not[labels][]=bug&not[labels][]=feat'), [4]);
    assert.deepEqual(await get('?not[milestone]=soon'), [4, 3, 2], 'issues without a milestone stay');
    assert.deepEqual(await get('?not[assignee_id]=1'), [4, 3, 1]);
    assert.deepEqual(await get('?not[assignee_username]=root'), [4, 3, 1]);
    assert.deepEqual(await get('?not[author_username]=root'), []);
    assert.deepEqual(await get('?not[iids][]=1&not[iids][]=3'), [4, 2]);
    assert.deepEqual(await get('?not[milestone_id]=None'), [2, 1]);
    assert.deepEqual(await get('?not[milestone_id]=Started'), [2], 'an active milestone starting after today');
    assert.deepEqual(await get('?not[milestone_id]=Upcoming'), [], 'only active milestones due by today are kept');
    const both = await fx.gantry.api('GET', `/projects/${projectId}/issues?not[author_id]=1&not[author_username]=root`);
    assert.deepEqual([both.status, both.json], [400, { error: 'not[author_id], not[author_username] are mutually exclusive' }]);
  });

  it('takes labels as a comma list or an array, and search with in', async () => {
    assert.deepEqual(await get('?labels[]=bug&labels[]=feat'), [3]);
    assert.deepEqual(await get('?labels=bug,feat'), [3]);
    assert.deepEqual(await get('?labels[]=None'), [4]);
    assert.deepEqual(await get('?search=bug%20alpha'), [1]);
    assert.deepEqual(await get('?search=alpha&in=title'), [1]);
    assert.deepEqual(await get('?search=alpha&in=description'), [2]);
    assert.deepEqual(await get('?search=alpha&in=nowhere'), [2, 1], 'no known column: both, as GitLab');
  });

  it('shows labels as objects with with_labels_details', async () => {
    const answer = await fx.gantry.api('GET', `/projects/${projectId}/issues?iids[]=3&with_labels_details=true`);
    const labels = answer.list[0]!.labels as Array<Record<string, unknown>>;
    assert.deepEqual(labels.map((label) => [label.name, typeof label.id, label.color, label.description, label.text_color]), [
      ['bug', 'number', '#428BCA', null, '#FFFFFF'],
      ['feat', 'number', '#428BCA', null, '#FFFFFF'],
    ]);
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${projectId}/issues?iids[]=3`)).list[0]!.labels, ['bug', 'feat']);
  });

  it('filters by milestone_id wildcards, due_date and issue_type', async () => {
    assert.deepEqual(await get('?milestone_id=None'), [4, 3]);
    assert.deepEqual(await get('?milestone_id=Any'), [2, 1]);
    assert.deepEqual(await get('?milestone_id=Upcoming'), [1], 'the next milestone due after today');
    assert.deepEqual(await get('?milestone_id=Started'), [1]);
    const both = await fx.gantry.api('GET', `/projects/${projectId}/issues?milestone_id=Any&milestone=soon`);
    assert.deepEqual([both.status, both.json], [400, { error: 'milestone_id, milestone are mutually exclusive' }]);
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${projectId}/issues?milestone_id=Soon`)).json, { error: 'milestone_id does not have a valid value' });
    assert.deepEqual(await get('?due_date=0'), [4]);
    assert.deepEqual(await get('?due_date=any'), [3, 2, 1]);
    assert.deepEqual(await get('?due_date=today'), [1]);
    assert.deepEqual(await get('?due_date=tomorrow'), [3]);
    assert.deepEqual(await get('?due_date=overdue'), [2]);
    assert.deepEqual(await get('?due_date=next_month_and_previous_two_weeks'), [3, 2, 1]);
    assert.deepEqual((await get('?due_date=month')).includes(1), true);
    assert.deepEqual((await fx.gantry.api('GET', `/projects/${projectId}/issues?due_date=someday`)).json, { error: 'due_date does not have a valid value' });
    assert.deepEqual(await get('?issue_type=issue'), [4, 3, 2, 1]);
    assert.deepEqual(await get('?issue_type=incident'), []);
  });
});
