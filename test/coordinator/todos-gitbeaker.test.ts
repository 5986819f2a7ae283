import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/** Subscriptions and todos as an unmodified @gitbeaker/rest drives them over a real port. */
describe('subscriptions and todos through @gitbeaker/rest', () => {
  let gantry: TestCoordinator;
  let root: InstanceType<typeof Gitlab>;
  let alice: InstanceType<typeof Gitlab>;
  let aliceId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const host = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}`;
    const user = await gantry.createUser('alice');
    aliceId = user.id;
    root = new Gitlab({ host, token: gantry.rootToken });
    alice = new Gitlab({ host, token: user.token });
  });
  after(() => gantry.close());

  it('lists and marks todos done, and subscribes to issues and labels', async () => {
    const project = await root.Projects.create({ name: 'followed', visibility: 'private' });
    await root.ProjectMembers.add(project.id, 20, { userId: aliceId });
    const label = await root.ProjectLabels.create(project.id, 'bug', '#d9534f');
    await root.Issues.create(project.id, 'Assigned', { assigneeIds: [aliceId] });
    await root.Issues.create(project.id, 'Mentioned', { description: '@alice have a look' });
    const todos = await alice.TodoLists.all({ projectId: project.id, state: 'pending' });
    assert.deepEqual(todos.map((todo) => [todo.action_name, todo.target_type, (todo.target as { iid: number }).iid]), [['directly_addressed', 'Issue', 2], ['assigned', 'Issue', 1]]);
    const done = await alice.TodoLists.done({ todoId: todos[0]!.id });
    assert.equal(done.state, 'done');
    await alice.TodoLists.done();
    assert.deepEqual(await alice.TodoLists.all(), []);
    assert.equal((await alice.TodoLists.all({ state: 'done', type: 'Issue' })).length, 2);

    const subscribed = await alice.Issues.subscribe(project.id, 2);
    assert.equal(subscribed.subscribed, true);
    const unsubscribed = await alice.Issues.unsubscribe(project.id, 1);
    assert.equal(unsubscribed.subscribed, false, 'an assignee takes part until they unsubscribe');
    const followed = await alice.ProjectLabels.subscribe(project.id, label.id);
    assert.equal(followed.subscribed, true);
    await assert.rejects(alice.ProjectLabels.subscribe(project.id, label.id), (error: Error & { cause?: { response?: Response } }) => error.cause?.response?.status === 304);
  });
});
