import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

describe('merge request lists', () => {
  let fx: MergeRequestFixture;
  let milestoneId: number;
  const iids = (list: Array<Record<string, unknown>>) => list.map((request) => request.iid);
  const project = (query = '') => `/projects/${fx.project.id}/merge_requests${query}`;

  before(async () => {
    fx = await startMergeRequestFixture();
    milestoneId = Number((await fx.gantry.api('POST', `/projects/${fx.project.id}/milestones`, { body: { title: 'v1' } })).json.id);
    for (const name of ['a', 'b', 'c', 'd']) await fx.branch(name);
    await fx.open({ source_branch: 'a', target_branch: 'main', title: 'Alpha', labels: 'bug,ui', milestone_id: milestoneId, assignee_ids: [fx.developer.id], description: 'has a needle' });
    await fx.open({ source_branch: 'b', target_branch: 'main', title: 'Draft: Bravo', labels: 'bug', reviewer_ids: [fx.maintainer.id] }, fx.developer.token);
    await fx.open({ source_branch: 'c', target_branch: 'a', title: 'WIP: charlie needle' }, fx.maintainer.token);
    await fx.open({ source_branch: 'd', target_branch: 'main', title: 'Delta' });
    assert.equal((await fx.gantry.api('PUT', project('/4'), { body: { state_event: 'close' } })).status, 200);
    // Root's thumbs up on !3 (award emoji on merge requests have no route here yet: stored directly).
    const three = await fx.gantry.coordinator.context.stores.mergeRequests.findByIid(fx.project.id, 3);
    const now = new Date().toISOString();
    await fx.gantry.coordinator.context.db.insertInto('award_emoji').values({ name: 'thumbsup', user_id: 1, awardable_type: 'MergeRequest', awardable_id: three!.id, created_at: now, updated_at: now }).execute();
  });
  after(() => fx.close());

  it('filters a project list by every parameter', async () => {
    const get = async (query: string) => iids((await fx.gantry.api('GET', project(query), { token: fx.guest.token })).list);
    assert.deepEqual(await get(''), [4, 3, 2, 1]);
    assert.deepEqual(await get('?state=opened'), [3, 2, 1]);
    assert.deepEqual(await get('?state=closed'), [4]);
    assert.deepEqual(await get('?state=merged'), []);
    assert.deepEqual(await get('?labels=bug,ui'), [1]);
    assert.deepEqual(await get('?labels=bug'), [2, 1]);
    assert.deepEqual(await get('?labels[]=bug&labels[]=ui'), [1], 'an array, as GitLab coerces labels');
    assert.deepEqual(await get('?labels[]=None'), [4, 3]);
    assert.deepEqual(await get('?search=needle&in=nowhere'), [3, 1], 'no known column: both, as GitLab');
    assert.deepEqual(await get('?labels=None'), [4, 3]);
    assert.deepEqual(await get('?labels=Any'), [2, 1]);
    assert.deepEqual(await get('?milestone=v1'), [1]);
    assert.deepEqual(await get('?milestone=None'), [4, 3, 2]);
    assert.deepEqual(await get('?milestone=Any'), [1]);
    assert.deepEqual(await get(`?author_id=${fx.developer.id}`), [2]);
    assert.deepEqual(await get(`?author_username=${fx.maintainer.username}`), [3]);
    assert.deepEqual(await get('?author_username=nobody-at-all'), []);
    assert.deepEqual(await get(`?assignee_username=${fx.developer.username}`), [1]);
    assert.deepEqual(await get(`?reviewer_username=${fx.maintainer.username}`), [2]);
    assert.deepEqual(await get(`?reviewer_username=${fx.developer.username}`), []);
    assert.deepEqual(await get(`?assignee_id=${fx.developer.id}`), [1]);
    assert.deepEqual(await get('?assignee_id=None'), [4, 3, 2]);
    assert.deepEqual(await get('?assignee_id=Any'), [1]);
    assert.deepEqual(await get(`?reviewer_id=${fx.maintainer.id}`), [2]);
    assert.deepEqual(await get('?reviewer_id=None'), [4, 3, 1]);
    assert.deepEqual(await get('?search=NEEDLE'), [3, 1]);
    assert.deepEqual(await get('?search=needle&in=title'), [3]);
    assert.deepEqual(await get('?search=needle%20charlie'), [3], 'every word, in any order (GitLab fuzzy search)');
    assert.deepEqual(await get('?search=delta'), [4]);
    assert.deepEqual(await get('?search=de'), [], 'a short query matches only a whole title or description');
    assert.deepEqual(await get('?search=needle&in=description'), [1]);
    assert.deepEqual(await get('?source_branch=c'), [3]);
    assert.deepEqual(await get('?target_branch=a'), [3]);
    assert.deepEqual(await get('?wip=yes'), [3, 2]);
    assert.deepEqual(await get('?wip=no'), [4, 1]);
    assert.deepEqual(await get('?iids[]=1&iids[]=3'), [3, 1]);
    assert.deepEqual(await get('?order_by=title&sort=asc'), [1, 4, 2, 3]);
    assert.deepEqual(await get('?created_after=2000-01-01T00:00:00Z&created_before=2999-01-01T00:00:00Z&sort=asc'), [1, 2, 3, 4]);
    assert.deepEqual(await get('?updated_before=2000-01-01T00:00:00Z'), []);
    const reacted = async (query: string) => iids((await fx.gantry.api('GET', project(query))).list);
    assert.deepEqual(await reacted('?my_reaction_emoji=thumbsup'), [3]);
    assert.deepEqual(await reacted('?my_reaction_emoji=Any'), [3]);
    assert.deepEqual(await reacted('?my_reaction_emoji=None'), [4, 2, 1]);
    assert.deepEqual(await get('?my_reaction_emoji=Any'), [], "the caller's own awards only");
    assert.deepEqual((await fx.gantry.api('GET', project('/3'))).json.upvotes, 1);
  });

  it('leaves out what not[...] names, and shows label objects with with_labels_details', async () => {
    const get = async (query: string) => iids((await fx.gantry.api('GET', project(query))).list);
    assert.deepEqual(await get('?not[labels]=ui'), [4, 3, 2]);
    assert.deepEqual(await get('?not[labels]=ui,bug'), [4, 3], 'any of the labels leaves a request out');
    assert.deepEqual(await get('?not[labels][]=ui&not[labels][]=bug'), [4, 3]);
    assert.deepEqual(await get('?labels=bug&not[labels]=ui'), [2]);
    assert.deepEqual(await get('?not[milestone]=v1'), [4, 3, 2], 'requests without a milestone stay');
    assert.deepEqual(await get(`?not[author_id]=${fx.developer.id}`), [4, 3, 1]);
    assert.deepEqual(await get(`?not[author_username]=${fx.maintainer.username}`), [4, 2, 1]);
    assert.deepEqual(await get('?not[author_username]=nobody-at-all'), [4, 3, 2, 1]);
    assert.deepEqual(await get(`?not[assignee_id]=${fx.developer.id}`), [4, 3, 2]);
    assert.deepEqual(await get(`?not[assignee_username]=${fx.developer.username}`), [4, 3, 2]);
    assert.deepEqual(await get(`?not[reviewer_id]=${fx.maintainer.id}`), [4, 3, 1]);
    assert.deepEqual(await get(`?not[reviewer_username]=${fx.maintainer.username}`), [4, 3, 1]);
    assert.deepEqual(await get('?not[my_reaction_emoji]=thumbsup'), [4, 2, 1]);
    assert.deepEqual(await get(`?state=opened&not[labels]=bug&not[author_username]=${fx.maintainer.username}`), []);
    const refused = await fx.gantry.api('GET', project(`?not[author_id]=1&not[author_username]=root`));
    assert.deepEqual(refused.json, { error: 'not[author_id], not[author_username] are mutually exclusive' });

    const [first] = (await fx.gantry.api('GET', project('?iids[]=1&with_labels_details=true'))).list;
    const bug = (await fx.gantry.api('GET', `/projects/${fx.project.id}/labels?search=bug`)).list[0]!;
    assert.deepEqual((first!.labels as Array<Record<string, unknown>>).map((label) => Object.keys(label).sort()), [
      ['color', 'description', 'id', 'name', 'text_color'],
      ['color', 'description', 'id', 'name', 'text_color'],
    ]);
    assert.deepEqual((first!.labels as Array<Record<string, unknown>>)[0], { id: bug.id, name: 'bug', color: bug.color, description: bug.description, text_color: bug.text_color });
    assert.deepEqual((await fx.gantry.api('GET', project('?iids[]=1'))).list[0]!.labels, ['bug', 'ui']);
  });

  it('counts a request being merged (locked) as opened, and lists merged ones', async () => {
    const { stores } = fx.gantry.coordinator.context;
    const [one, two] = [await stores.mergeRequests.findByIid(fx.project.id, 1), await stores.mergeRequests.findByIid(fx.project.id, 2)];
    await stores.mergeRequests.update(one!.id, { state: 'locked' }, {});
    await stores.mergeRequests.update(two!.id, { state: 'merged' }, {});
    const get = async (query: string) => iids((await fx.gantry.api('GET', project(query))).list);
    assert.deepEqual([await get('?state=opened'), await get('?state=locked'), await get('?state=merged')], [[3, 1], [1], [2]]);
    await stores.mergeRequests.update(one!.id, { state: 'opened' }, {});
    await stores.mergeRequests.update(two!.id, { state: 'opened' }, {});
  });

  it('answers pagination headers and view=simple', async () => {
    const paged = await fx.gantry.api('GET', project('?per_page=2&page=2'));
    assert.deepEqual([iids(paged.list), paged.headers['x-total'], paged.headers['x-total-pages'], paged.headers['x-page']], [[2, 1], '4', '2', '2']);
    const simple = (await fx.gantry.api('GET', project('?view=simple&per_page=1'))).list[0]!;
    assert.deepEqual(Object.keys(simple).sort(), ['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
  });

  it('refuses bad parameters', async () => {
    const bad = async (query: string) => (await fx.gantry.api('GET', project(query))).json;
    assert.deepEqual(await bad('?state=gone'), { error: 'state does not have a valid value' });
    assert.deepEqual(await bad('?assignee_id=someone'), { error: 'assignee_id is invalid' });
    assert.deepEqual(await bad('?reviewer_id=x'), { error: 'reviewer_id is invalid' });
    assert.deepEqual(await bad('?wip=maybe'), { error: 'wip does not have a valid value' });
    assert.deepEqual(await bad('?order_by=iid'), { error: 'order_by does not have a valid value' });
    assert.deepEqual(await bad(`?author_id=1&author_username=root`), { error: 'author_id, author_username are mutually exclusive' });
    assert.deepEqual(await bad(`?reviewer_id=1&reviewer_username=root`), { error: 'reviewer_id, reviewer_username are mutually exclusive' });
    assert.deepEqual((await fx.gantry.api('GET', project(), { token: fx.stranger.token })).json, { message: '404 Project Not Found' });
  });

  it('scopes the global list to the caller (created by default), and lists a group and a milestone', async () => {
    const global = async (query: string, token?: string) => iids((await fx.gantry.api('GET', `/merge_requests${query}`, { token })).list);
    assert.deepEqual(await global('', fx.developer.token), [2]);
    assert.deepEqual(await global('?scope=assigned-to-me', fx.developer.token), [1]);
    assert.deepEqual(await global('?scope=all', fx.developer.token), [4, 3, 2, 1]);
    // The scope and the author or assignee filters all apply: another user under "mine" matches nothing.
    assert.deepEqual(await global(`?author_id=${fx.developer.id}`, fx.developer.token), [2]);
    assert.deepEqual(await global(`?author_id=${fx.maintainer.id}`, fx.developer.token), []);
    assert.deepEqual(await global(`?scope=assigned_to_me&assignee_username=${fx.maintainer.username}`, fx.developer.token), []);
    assert.deepEqual(await global('?scope=assigned_to_me&assignee_id=Any', fx.developer.token), [1]);
    assert.deepEqual(await global('?scope=all', fx.stranger.token), []);
    assert.deepEqual(await global('?scope=all&state=opened&labels=bug'), [2, 1]);
    assert.deepEqual(iids((await fx.gantry.api('GET', `/groups/${fx.group.id}/merge_requests?state=opened`, { token: fx.guest.token })).list), [3, 2, 1]);
    assert.deepEqual((await fx.gantry.api('GET', `/groups/${fx.group.id}/merge_requests`, { token: fx.stranger.token })).json, { message: '404 Group Not Found' });
    const milestone = await fx.gantry.api('GET', `/projects/${fx.project.id}/milestones/${milestoneId}/merge_requests`);
    assert.deepEqual([iids(milestone.list), milestone.headers['x-total']], [[1], '1']);
    const groupMilestone = Number((await fx.gantry.api('POST', `/groups/${fx.group.id}/milestones`, { body: { title: 'g1' } })).json.id);
    await fx.gantry.api('PUT', project('/2'), { body: { milestone_id: groupMilestone } });
    assert.deepEqual(iids((await fx.gantry.api('GET', `/groups/${fx.group.id}/milestones/${groupMilestone}/merge_requests`)).list), [2]);
  });

  it('counts open merge requests per label (with_counts)', async () => {
    const labels = (await fx.gantry.api('GET', `/projects/${fx.project.id}/labels?with_counts=true`)).list;
    assert.deepEqual(labels.map((label) => [label.name, label.open_merge_requests_count]), [['bug', 2], ['ui', 1]]);
    await fx.gantry.api('PUT', project('/2'), { body: { state_event: 'close' } });
    const after = (await fx.gantry.api('GET', `/groups/${fx.group.id}/labels?with_counts=true`)).list;
    assert.deepEqual(after, [], 'project labels are not the group\'s');
    const again = (await fx.gantry.api('GET', `/projects/${fx.project.id}/labels?with_counts=true`)).list;
    assert.deepEqual(again.map((label) => [label.name, label.open_merge_requests_count]), [['bug', 1], ['ui', 1]]);
  });
});
