import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMIT_REFERENCES_TASK, type CommitReferencesTask } from '../../src/coordinator/services/planning/commit-references.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

describe('issue references in pushed commits', () => {
  let fixture: GitHttpFixture;
  let app: ProjectRecord;
  let cwd: string;
  let dev: TestUser;
  let guest: TestUser;
  const issueIds = new Map<string, number>();

  const git = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
    const result = await fixture.git(args, { cwd, env });
    assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const authoredBy = (email: string) => ({ GIT_AUTHOR_EMAIL: email });

  async function commit(message: string, email: string): Promise<string> {
    await git(['commit', '--allow-empty', '-m', message], authoredBy(email));
    return git(['rev-parse', 'HEAD']);
  }

  async function openIssue(projectId: number, key: string, title: string): Promise<void> {
    const created = await fixture.gantry.api('POST', `/projects/${projectId}/issues`, { body: { title } });
    assert.equal(created.status, 201, created.text);
    issueIds.set(key, Number(created.json.id));
  }

  async function notesOf(key: string): Promise<Array<{ body: string; author_id: number; system: number }>> {
    const id = issueIds.get(key);
    assert.ok(id !== undefined, key);
    return fixture.gantry.coordinator.context.db
      .selectFrom('notes').select(['body', 'author_id', 'system']).where('noteable_type', '=', 'Issue').where('noteable_id', '=', id).orderBy('id').execute();
  }

  async function issue(key: string): Promise<{ state: string; closed_by_id: number | null }> {
    const id = issueIds.get(key) ?? 0;
    return fixture.gantry.coordinator.context.db.selectFrom('issues').select(['state', 'closed_by_id']).where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** The push's reference task has run (completed tasks leave the queue; none may die). */
  async function referencesDone(): Promise<void> {
    const { db } = fixture.gantry.coordinator.context;
    await waitUntil(async () => (await db.selectFrom('tasks').select('id').where('kind', '=', COMMIT_REFERENCES_TASK).execute()).length === 0, 'the reference tasks to finish');
  }

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50 } } });
    const group = await makeGroup(fixture.gantry, 'refs');
    const hidden = await makeGroup(fixture.gantry, 'hidden');
    app = await fixture.project(group.id, 'app', { withReadme: true });
    const lib = await fixture.project(group.id, 'lib', { withReadme: true });
    const secret = await fixture.project(hidden.id, 'secret', { withReadme: true });
    dev = await makeUser(fixture.gantry, 'dev');
    guest = await makeUser(fixture.gantry, 'guesty');
    await makeUser(fixture.gantry, 'outsider');
    await addMember(fixture.gantry, { type: 'namespace', id: group.id }, dev.id, 30);
    await addMember(fixture.gantry, { type: 'namespace', id: group.id }, guest.id, 10);
    for (const iid of [1, 2, 3, 4, 5]) await openIssue(app.id, `app#${iid}`, `app issue ${iid}`);
    await openIssue(lib.id, 'lib#1', 'lib issue');
    await openIssue(secret.id, 'secret#1', 'secret issue');
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('refs/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
  });
  after(() => fixture.close());

  let featureSha = '';

  it('notes mentions on a branch (as the commit author, once per issue), closes nothing there, and skips issues the author cannot see', async () => {
    await git(['checkout', '-b', 'feature']);
    featureSha = await commit('Fixes #1, see lib#1, refs/lib#1, #1 again and hidden/secret#1', 'dev@example.com');
    await git(['push', 'origin', 'feature']);
    await referencesDone();

    assert.deepEqual(await notesOf('app#1'), [{ body: `mentioned in commit ${featureSha}`, author_id: dev.id, system: 1 }]);
    assert.deepEqual(await notesOf('lib#1'), [{ body: `mentioned in commit app@${featureSha}`, author_id: dev.id, system: 1 }]);
    assert.deepEqual(await notesOf('secret#1'), []);
    assert.equal((await issue('app#1')).state, 'opened');
  });

  it('runs again without doubling anything (a retried task, the same commit pushed to another branch)', async () => {
    const payload: CommitReferencesTask = { projectId: app.id, ref: 'refs/heads/feature', before: '0'.repeat(40), after: featureSha, userId: 1 };
    await fixture.gantry.coordinator.context.stores.tasks.enqueue({ kind: COMMIT_REFERENCES_TASK, payload, maxAttempts: 1 }, new Date().toISOString());
    await git(['push', 'origin', 'feature:other']);
    await referencesDone();
    assert.equal((await notesOf('app#1')).length, 1);
    assert.equal((await notesOf('lib#1')).length, 1);
  });

  it('closes on reaching the default branch, as the author, with "closed via commit"', async () => {
    await git(['push', 'origin', 'feature:main']);
    await referencesDone();
    assert.deepEqual(await issue('app#1'), { state: 'closed', closed_by_id: dev.id });
    assert.deepEqual((await notesOf('app#1')).map((note) => note.body), [`mentioned in commit ${featureSha}`, `closed via commit ${featureSha}`]);
    assert.equal((await notesOf('lib#1')).length, 1, 'a cross-project mention is not repeated');
  });

  it('falls back to the pusher for an unknown email; an author who cannot see the issue or may not update it closes nothing', async () => {
    await git(['checkout', 'main']);
    await git(['reset', '--hard', featureSha]);
    const byStranger = await commit('Closes #2 and #3', 'nobody@nowhere.test');
    const byOutsider = await commit('Closes #4', 'outsider@example.com');
    const byGuest = await commit('Resolves: issue #5', 'guesty@example.com');
    await git(['push', 'origin', 'HEAD:main']);
    await referencesDone();

    for (const key of ['app#2', 'app#3']) {
      assert.deepEqual(await issue(key), { state: 'closed', closed_by_id: 1 }, key);
      assert.deepEqual(await notesOf(key), [{ body: `closed via commit ${byStranger}`, author_id: 1, system: 1 }], key);
    }
    assert.deepEqual([await issue('app#4'), await notesOf('app#4')], [{ state: 'opened', closed_by_id: null }, []], `outsider's ${byOutsider}`);
    assert.deepEqual(await issue('app#5'), { state: 'opened', closed_by_id: null });
    assert.deepEqual(await notesOf('app#5'), [{ body: `mentioned in commit ${byGuest}`, author_id: guest.id, system: 1 }]);
  });

  it("names as author the user whose confirmed secondary address the commit has; an unconfirmed one is nobody's", async () => {
    for (const iid of [6, 7]) await openIssue(app.id, `app#${iid}`, `app issue ${iid}`);
    const confirmed = await fixture.gantry.api('POST', `/users/${dev.id}/emails`, { body: { email: 'dev.home@example.com', skip_confirmation: true } });
    const unconfirmed = await fixture.gantry.api('POST', `/users/${guest.id}/emails`, { body: { email: 'guesty.home@example.com' } });
    assert.deepEqual([confirmed.status, unconfirmed.status, unconfirmed.json.confirmed_at], [201, 201, null]);
    await git(['checkout', 'main']);
    await git(['pull', '--ff-only', 'origin', 'main']);
    const byDev = await commit('Closes #6', 'dev.home@example.com');
    const byGuest = await commit('Closes #7', 'guesty.home@example.com');
    await git(['push', 'origin', 'HEAD:main']);
    await referencesDone();
    assert.deepEqual(await issue('app#6'), { state: 'closed', closed_by_id: dev.id });
    assert.deepEqual(await notesOf('app#6'), [{ body: `closed via commit ${byDev}`, author_id: dev.id, system: 1 }]);
    // The pusher (root) closes it instead.
    assert.deepEqual(await notesOf('app#7'), [{ body: `closed via commit ${byGuest}`, author_id: 1, system: 1 }]);
  });
});
