import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';

describe('concurrent merges and merge methods', () => {
  let fixture: MergeFixture;

  before(async () => {
    fixture = await startMergeFixture('racing');
  });
  after(() => fixture.close());

  it('merges one request once when two merges race: one 200, the other 405', async () => {
    const project = await fixture.project('once');
    await fixture.commit(project.id, 'topic', { 't.txt': 't\n' }, { startBranch: 'main' });
    const before = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    const request = await fixture.openRequest(project.id, 'topic');
    const answers = await Promise.all([fixture.merge(project.id, request.iid), fixture.merge(project.id, request.iid)]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 405], answers.map((answer) => answer.text).join('\n'));
    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', `${tip}^1`]), before, 'exactly one merge commit on main');
  });

  it('lands two requests racing into one branch, the second on the first\'s merge commit', async () => {
    const project = await fixture.project('both');
    const left = await fixture.commit(project.id, 'left', { 'left.txt': 'l\n' }, { startBranch: 'main' });
    const right = await fixture.commit(project.id, 'right', { 'right.txt': 'r\n' }, { startBranch: 'main' });
    const first = await fixture.openRequest(project.id, 'left');
    const second = await fixture.openRequest(project.id, 'right');
    const answers = await Promise.all([fixture.merge(project.id, first.iid), fixture.merge(project.id, second.iid)]);
    assert.deepEqual(answers.map((answer) => answer.status), [200, 200], answers.map((answer) => answer.text).join('\n'));
    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    for (const source of [left, right]) assert.equal((await fixture.git(project.gitDir, ['merge-base', '--is-ancestor', source, tip]).then(() => true)), true);
    const files = (await fixture.git(project.gitDir, ['ls-tree', '--name-only', tip])).split('\n').sort();
    assert.deepEqual(files, ['README.md', 'left.txt', 'right.txt']);
    assert.equal(await fixture.git(project.gitDir, ['rev-list', '--count', '--merges', tip]), '2');
  });

  it('gives the second of two conflicting requests 406 once the first landed', async () => {
    const project = await fixture.project('clash');
    await fixture.commit(project.id, 'one', { 'same.txt': 'one\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'two', { 'same.txt': 'two\n' }, { startBranch: 'main' });
    const one = await fixture.openRequest(project.id, 'one');
    const two = await fixture.openRequest(project.id, 'two');
    assert.equal((await fixture.merge(project.id, one.iid)).status, 200);
    assert.equal((await fixture.merge(project.id, two.iid)).status, 406);
  });

  it('fast-forwards under merge_method ff (406 when the source is behind), and rebase_merge writes a merge commit only on a rebased source', async () => {
    const project = await fixture.project('linear');
    const settings = await fixture.gantry.api('PUT', `/projects/${project.id}`, { body: { merge_method: 'ff', squash_option: 'default_on', remove_source_branch_after_merge: false } });
    assert.equal(settings.status, 200, settings.text);
    const shown = await fixture.gantry.api('GET', `/projects/${project.id}`);
    assert.deepEqual([shown.json.merge_method, shown.json.squash_option, shown.json.remove_source_branch_after_merge], ['ff', 'default_on', false]);
    assert.equal((await fixture.gantry.api('PUT', `/projects/${project.id}`, { body: { merge_method: 'octopus' } })).status, 400);

    const ahead = await fixture.commit(project.id, 'ahead', { 'a.txt': 'a\n' }, { startBranch: 'main' });
    const ffRequest = await fixture.openRequest(project.id, 'ahead');
    const fastForward = await fixture.merge(project.id, ffRequest.iid);
    assert.equal(fastForward.status, 200, fastForward.text);
    assert.equal(await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']), ahead, 'main is the source tip: no merge commit');
    assert.equal(fastForward.json.merge_commit_sha, ahead);

    await fixture.commit(project.id, 'behind', { 'b.txt': 'b\n' }, { startBranch: 'main' });
    await fixture.commit(project.id, 'main', { 'm.txt': 'm\n' });
    const behind = await fixture.openRequest(project.id, 'behind');
    const refused = await fixture.merge(project.id, behind.iid);
    assert.equal(refused.status, 406);
    assert.deepEqual(refused.json, { message: 'Branch cannot be merged' });

    assert.equal((await fixture.gantry.api('PUT', `/projects/${project.id}`, { body: { merge_method: 'rebase_merge' } })).status, 200);
    assert.equal((await fixture.merge(project.id, behind.iid)).status, 406, 'semi-linear history needs a rebased source too');
    const main = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    const rebased = await fixture.commit(project.id, 'rebased', { 'r.txt': 'r\n' }, { startBranch: 'main' });
    const rebasedRequest = await fixture.openRequest(project.id, 'rebased');
    assert.equal((await fixture.merge(project.id, rebasedRequest.iid)).status, 200);
    const tip = await fixture.git(project.gitDir, ['rev-parse', 'refs/heads/main']);
    assert.equal(await fixture.git(project.gitDir, ['rev-list', '--parents', '-n1', tip]), `${tip} ${main} ${rebased}`);
  });
});
