import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenMergeRequestExists, type NewMergeRequest } from '../../../src/storage/types-merge-requests.ts';
import type { NamespaceRecord, ProjectRecord, UserRecord } from '../../../src/storage/types.ts';
import { createGroup, createProject, createUser, NOW, openCiTestDatabase, SHA, type CiTestDatabase } from './ci-fixtures.ts';

describe('merge requests storage', () => {
  let database: CiTestDatabase & { url: string };
  let group: NamespaceRecord;
  let project: ProjectRecord;
  let alice: UserRecord;
  let bob: UserRecord;

  const request = (source: string, target = 'main', extra: Partial<NewMergeRequest> = {}): NewMergeRequest => ({
    project_id: project.id, source_project_id: project.id, source_branch: source, target_branch: target, author_id: alice.id,
    title: `Merge ${source}`, description: null, state: 'opened', created_at: NOW, ...extra,
  });

  before(async () => {
    database = await openCiTestDatabase();
    alice = await createUser(database.stores, 'alice');
    bob = await createUser(database.stores, 'bob');
    group = await createGroup(database.stores, 'mr');
    project = await createProject(database.stores, group, 'app');
  });
  after(() => database.close());

  it('numbers requests per project and fills the defaults', async () => {
    const { mergeRequests } = database.stores;
    const created = await Promise.all(['a', 'b', 'c', 'd'].map((branch) => mergeRequests.create(request(branch), {})));
    assert.deepEqual(created.map((row) => row.iid).sort(), [1, 2, 3, 4]);
    const first = created[0]!;
    assert.equal(first.merge_status, 'unchecked');
    assert.equal(first.merge_when_pipeline_succeeds, false);
    assert.equal(first.should_remove_source_branch, null);
    assert.equal(first.discussion_locked, null);
    assert.equal(first.updated_at, NOW);
    assert.deepEqual(await mergeRequests.findByIid(project.id, first.iid), first);
  });

  it('refuses a second open request for the same pair of branches, also when both race', async () => {
    const { mergeRequests } = database.stores;
    const results = await Promise.allSettled([mergeRequests.create(request('race'), {}), mergeRequests.create(request('race'), {})]);
    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.filter((result) => result.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 1);
    const reason = (lost[0] as PromiseRejectedResult).reason as unknown;
    assert.ok(reason instanceof OpenMergeRequestExists);
    assert.equal(reason.existingIid, (won[0] as PromiseFulfilledResult<{ iid: number }>).value.iid);
    const other = await mergeRequests.create(request('race', 'stable'), {});
    assert.equal(other.target_branch, 'stable', 'another target branch is another pair');
    const closed = await mergeRequests.update((won[0] as PromiseFulfilledResult<{ id: number }>).value.id, { state: 'closed' }, {});
    assert.equal(closed?.state, 'closed');
    assert.equal((await mergeRequests.create(request('race'), {})).state, 'opened', 'a closed request frees the pair');
  });

  it('keeps assignees and reviewers in the order given, and labels by title', async () => {
    const { mergeRequests, labels } = database.stores;
    const zebra = await labels.create({ project_id: project.id, group_id: null, title: 'zebra', color: '#000000', description: null, priority: null, created_at: NOW, updated_at: NOW });
    const apple = await labels.create({ project_id: project.id, group_id: null, title: 'apple', color: '#000000', description: null, priority: null, created_at: NOW, updated_at: NOW });
    const row = await mergeRequests.create(request('people'), { assigneeIds: [bob.id, alice.id], reviewerIds: [alice.id], labelIds: [zebra.id, apple.id] });
    assert.deepEqual((await mergeRequests.assigneesOf([row.id])).get(row.id), [bob.id, alice.id]);
    assert.deepEqual((await mergeRequests.reviewersOf([row.id])).get(row.id), [alice.id]);
    assert.deepEqual((await mergeRequests.labelsOf([row.id])).get(row.id)?.map((label) => label.title), ['apple', 'zebra']);
    await mergeRequests.update(row.id, { title: 'Draft: people' }, { reviewerIds: [] });
    assert.equal((await mergeRequests.reviewersOf([row.id])).get(row.id), undefined);
    assert.deepEqual((await mergeRequests.assigneesOf([row.id])).get(row.id), [bob.id, alice.id], 'relations not given stay');
  });

  it('writes a compare-and-set change once, and finds open requests by source and by target', async () => {
    const { mergeRequests } = database.stores;
    const row = await mergeRequests.create(request('cas', 'release'), {});
    const [one, two] = await Promise.all([
      mergeRequests.updateIfUnchanged(row.id, row.lock_version, { state: 'locked', merge_params: { sha: SHA, squash: true } }),
      mergeRequests.updateIfUnchanged(row.id, row.lock_version, { state: 'closed' }),
    ]);
    assert.equal([one, two].filter(Boolean).length, 1, 'exactly one write wins');
    const winner = (one ?? two)!;
    assert.equal(winner.lock_version, row.lock_version + 1);
    if (one) assert.deepEqual(one.merge_params, { sha: SHA, squash: true });
    await mergeRequests.update(row.id, { state: 'opened' }, {});
    assert.deepEqual((await mergeRequests.openBySource(project.id, 'cas')).map((found) => found.id), [row.id]);
    assert.deepEqual((await mergeRequests.openByTarget(project.id, 'release')).map((found) => found.id), [row.id]);
    assert.equal(await mergeRequests.delete(row.id), true);
    assert.equal(await mergeRequests.findByIid(project.id, row.iid), undefined);
  });
});
