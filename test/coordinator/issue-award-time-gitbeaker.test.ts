import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/** Award emoji and time tracking as an unmodified @gitbeaker/rest drives them over a real port. */
describe('award emoji and time tracking through @gitbeaker/rest', () => {
  let gantry: TestCoordinator;
  let client: InstanceType<typeof Gitlab>;
  let projectId: number;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const address = gantry.coordinator.app.server.address() as AddressInfo;
    client = new Gitlab({ host: `http://127.0.0.1:${address.port}`, token: gantry.rootToken });
    projectId = (await client.Projects.create({ name: 'reacted' })).id;
    await client.Issues.create(projectId, 'Crash on start');
  });
  after(() => gantry.close());

  it('awards, lists, shows and removes award emoji, and the issue counts its votes', async () => {
    const award = await client.IssueAwardEmojis.award(projectId, 1, 'thumbsup');
    assert.deepEqual([award.name, award.awardable_type], ['thumbsup', 'Issue']);
    await client.IssueAwardEmojis.award(projectId, 1, 'tada');
    assert.deepEqual((await client.IssueAwardEmojis.all(projectId, 1)).map((item) => item.name), ['thumbsup', 'tada']);
    assert.equal((await client.IssueAwardEmojis.show(projectId, 1, award.id)).id, award.id);
    assert.equal((await client.Issues.show(1, { projectId })).upvotes, 1);
    const mine = await client.Issues.all({ projectId, myReactionEmoji: 'tada' });
    assert.deepEqual(mine.map((issue) => issue.iid), [1]);
    await client.IssueAwardEmojis.remove(projectId, 1, award.id);
    assert.deepEqual((await client.IssueAwardEmojis.all(projectId, 1)).map((item) => item.name), ['tada']);
    await assert.rejects(client.IssueAwardEmojis.award(projectId, 1, 'tada'), (error: Error & { cause?: { response?: Response } }) => error.cause?.response?.status === 404);
  });

  it('sets the estimate, adds and subtracts time spent, reads and resets the time stats', async () => {
    assert.equal((await client.Issues.addTimeEstimate(projectId, 1, '3h30m')).human_time_estimate, '3h 30m');
    assert.equal((await client.Issues.addSpentTime(projectId, 1, '1w 1d')).human_total_time_spent, '1w 1d');
    assert.equal((await client.Issues.addSpentTime(projectId, 1, '-1d')).total_time_spent, 40 * 3600);
    assert.deepEqual(await client.Issues.showTimeStats(projectId, 1), { time_estimate: 12600, total_time_spent: 144000, human_time_estimate: '3h 30m', human_total_time_spent: '1w' });
    assert.equal((await client.Issues.resetSpentTime(projectId, 1)).total_time_spent, 0);
    assert.equal((await client.Issues.resetTimeEstimate(projectId, 1)).human_time_estimate, null);
  });
});
