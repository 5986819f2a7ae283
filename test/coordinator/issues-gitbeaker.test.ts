import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/** Issues, labels, milestones and notes as an unmodified @gitbeaker/rest drives them over a real port. */
describe('issues through @gitbeaker/rest', () => {
  let gantry: TestCoordinator;
  let client: InstanceType<typeof Gitlab>;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gantry.coordinator.app.server.address() as AddressInfo;
    client = new Gitlab({ host: `http://127.0.0.1:${address.port}`, token: gantry.rootToken });
  });
  after(() => gantry.close());

  it('creates an issue with labels and a milestone, lists it by labels, and closes it', async () => {
    const project = await client.Projects.create({ name: 'planned' });
    await client.ProjectLabels.create(project.id, 'bug', '#d9534f');
    const milestone = await client.ProjectMilestones.create(project.id, 'v1.0', { dueDate: '2030-01-01' });
    const issue = await client.Issues.create(project.id, 'Crash on start', { labels: 'bug,urgent', milestoneId: milestone.id, description: '- [ ] reproduce' });
    assert.deepEqual([issue.iid, issue.labels, issue.milestone?.title, issue.has_tasks], [1, ['bug', 'urgent'], 'v1.0', true]);
    await client.Issues.create(project.id, 'Only a bug', { labels: 'bug' });
    const both = await client.Issues.all({ projectId: project.id, labels: 'bug,urgent', state: 'opened' });
    assert.deepEqual(both.map((listed) => listed.iid), [1]);
    const closed = await client.Issues.edit(project.id, 1, { stateEvent: 'close' });
    assert.equal(closed.state, 'closed');
    const open = await client.Issues.all({ projectId: project.id, state: 'opened' });
    assert.deepEqual(open.map((listed) => listed.iid), [2]);
    const labels = await client.ProjectLabels.all(project.id, { withCounts: true });
    assert.deepEqual(labels.map((label) => [label.name, label.open_issues_count, label.closed_issues_count]), [['bug', 1, 1], ['urgent', 0, 1]]);
  });

  it('comments on an issue, follows the pages of its notes, edits and deletes a note', async () => {
    const project = await client.Projects.create({ name: 'discussed' });
    const issue = await client.Issues.create(project.id, 'Talk about it');
    const first = await client.IssueNotes.create(project.id, issue.iid, 'First', { internal: true });
    assert.deepEqual([first.body, first.internal, first.noteable_iid, first.system], ['First', true, issue.iid, false]);
    for (let n = 2; n <= 5; n += 1) await client.IssueNotes.create(project.id, issue.iid, `Note ${n}`);
    await client.Issues.edit(project.id, issue.iid, { stateEvent: 'close' });
    const all = await client.IssueNotes.all(project.id, issue.iid, { sort: 'asc', perPage: 2 });
    assert.deepEqual(all.map((note) => note.body), ['First', 'Note 2', 'Note 3', 'Note 4', 'Note 5', 'closed']);
    const edited = await client.IssueNotes.edit(project.id, issue.iid, first.id, { body: 'First, edited' });
    assert.equal((await client.IssueNotes.show(project.id, issue.iid, first.id)).body, edited.body);
    await client.IssueNotes.remove(project.id, issue.iid, first.id);
    assert.equal((await client.IssueNotes.all(project.id, issue.iid)).length, 5);
    assert.equal((await client.Issues.show(issue.iid, { projectId: project.id })).user_notes_count, 4);
  });
});
