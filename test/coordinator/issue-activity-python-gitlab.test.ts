import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

/**
 * python-gitlab (Debian's python3-gitlab, unmodified) drives what happens around an issue:
 * notes, award emoji, time tracking, subscriptions, todos and a move
 * (test/fixtures/python-gitlab/drive_activity.py), as a second user and as root.
 */
describe('issue activity through python-gitlab', () => {
  let gantry: TestCoordinator;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    seen = await drivePythonGitlab(gantry, 'drive_activity.py');
  });
  after(() => gantry.close());

  it('writes and edits a note, and closing leaves a system note after it', () => {
    assert.deepEqual(seen.notes, [['I can reproduce it on 1.2', false], ['closed', true]]);
    assert.equal(seen.user_notes_count, 1);
  });

  it('awards emoji on the issue and a note, counts votes and filters by the caller’s reaction', () => {
    assert.deepEqual(seen.votes, [1, 1]);
    assert.deepEqual(seen.my_reaction, [1]);
    assert.deepEqual(seen.note_awards, ['tada']);
    assert.deepEqual(seen.awards_left, ['thumbsdown']);
  });

  it('tracks time with GitLab’s durations and human strings, and resets it', () => {
    assert.deepEqual(seen.time_stats, { time_estimate: 12_600, total_time_spent: 3_600, human_time_estimate: '3h 30m', human_total_time_spent: '1h' });
    assert.deepEqual(seen.time_reset, [0, 0]);
  });

  it('subscribes to issues and labels, and lists and closes the todos of an assignment and a mention', () => {
    assert.deepEqual([seen.unsubscribed, seen.subscribed, seen.label_subscribed], [false, true, true]);
    assert.deepEqual(seen.todos, ['assigned'], 'one pending todo per user and issue: the mention in the description adds none');
    assert.deepEqual(seen.todos_after_note, ['directly_addressed']);
    assert.equal(seen.todos_after_all, 0);
  });

  it('moves an issue to another project, closing the original', () => {
    assert.deepEqual(seen.moved, [true, 1, 'Wrong place']);
    assert.deepEqual(seen.moved_from, ['closed', true]);
  });
});
