import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { COMMIT_REFERENCES_TASK, type CommitReferencesTask } from '../../src/coordinator/services/planning/commit-references.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

describe('the task-comments integration on pushes', () => {
  let fixture: GitHttpFixture;
  let app: ProjectRecord;
  let cwd: string;
  let dev: TestUser;
  let bot: TestUser;
  let pusherName = '';
  const issueIds = new Map<number, number>();

  const git = async (args: string[], env: Record<string, string> = {}): Promise<string> => {
    const result = await fixture.git(args, { cwd, env });
    assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  async function commit(message: string): Promise<string> {
    await git(['commit', '--allow-empty', '-m', message], { GIT_AUTHOR_EMAIL: 'dev@example.com' });
    return git(['rev-parse', 'HEAD']);
  }
  async function notesOf(iid: number): Promise<Array<{ body: string; author_id: number; system: number }>> {
    const id = issueIds.get(iid) ?? 0;
    return fixture.gantry.coordinator.context.db
      .selectFrom('notes').select(['body', 'author_id', 'system']).where('noteable_type', '=', 'Issue').where('noteable_id', '=', id).orderBy('id').execute();
  }
  async function issue(iid: number): Promise<{ state: string; closed_by_id: number | null }> {
    const id = issueIds.get(iid) ?? 0;
    return fixture.gantry.coordinator.context.db.selectFrom('issues').select(['state', 'closed_by_id']).where('id', '=', id).executeTakeFirstOrThrow();
  }
  async function referencesDone(): Promise<void> {
    const { db } = fixture.gantry.coordinator.context;
    await waitUntil(async () => (await db.selectFrom('tasks').select('id').where('kind', '=', COMMIT_REFERENCES_TASK).execute()).length === 0, 'the reference tasks to finish');
  }
  async function configure(body: Record<string, string>): Promise<void> {
    const saved = await fixture.gantry.api('PUT', `/projects/${app.id}/services/asana`, { body });
    assert.equal(saved.status, 200, saved.text);
  }
  const comment = (branch: string, sha: string, message: string) => `${pusherName} pushed to branch ${branch} of tc/app ( http://gantry.test/tc/app/-/commit/${sha} ): ${message}`;

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50 } } });
    const group = await makeGroup(fixture.gantry, 'tc');
    app = await fixture.project(group.id, 'app', { withReadme: true });
    dev = await makeUser(fixture.gantry, 'dev');
    bot = await makeUser(fixture.gantry, 'tasks-bot');
    await addMember(fixture.gantry, { type: 'namespace', id: group.id }, dev.id, 30);
    await addMember(fixture.gantry, { type: 'namespace', id: group.id }, bot.id, 30);
    for (const iid of [1, 2, 3, 4, 5, 6]) {
      const created = await fixture.gantry.api('POST', `/projects/${app.id}/issues`, { body: { title: `issue ${iid}` } });
      assert.equal(created.status, 201, created.text);
      issueIds.set(iid, Number(created.json.id));
    }
    pusherName = (await fixture.gantry.coordinator.context.stores.users.findById(1))?.name ?? '';
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('tc/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
    await configure({ api_key: bot.token, restrict_to_branch: ' release , main' });
  });
  after(() => fixture.close());

  it('leaves a branch outside restrict_to_branch to the always-on "mentioned in commit" notes', async () => {
    await git(['checkout', '-b', 'feature']);
    const sha = await commit('Fixes #1, see #2');
    await git(['push', 'origin', 'feature']);
    await referencesDone();
    assert.deepEqual(await notesOf(1), [{ body: `mentioned in commit ${sha}`, author_id: dev.id, system: 1 }]);
    assert.deepEqual(await notesOf(2), [{ body: `mentioned in commit ${sha}`, author_id: dev.id, system: 1 }]);
    assert.equal((await issue(1)).state, 'opened');
  });

  let releaseSha = '';

  it('on a listed branch comments as the api_key user instead of the mention note, and `fix #<iid>` closes the issue there', async () => {
    releaseSha = await commit('fix #3, refs #4');
    await git(['push', 'origin', 'HEAD:release']);
    await referencesDone();
    const body = comment('release', releaseSha, 'fix #3, refs #4');
    assert.deepEqual(await notesOf(3), [
      { body, author_id: bot.id, system: 0 },
      { body: `closed via commit ${releaseSha}`, author_id: bot.id, system: 1 },
    ]);
    assert.deepEqual(await issue(3), { state: 'closed', closed_by_id: bot.id });
    assert.deepEqual(await notesOf(4), [{ body, author_id: bot.id, system: 0 }]);
    assert.equal((await issue(4)).state, 'opened');
  });

  it('comments once per commit and issue when the task runs again', async () => {
    const payload: CommitReferencesTask = { projectId: app.id, ref: 'refs/heads/release', before: '0'.repeat(40), after: releaseSha, userId: 1 };
    await fixture.gantry.coordinator.context.stores.tasks.enqueue({ kind: COMMIT_REFERENCES_TASK, payload, maxAttempts: 1 }, new Date().toISOString());
    await referencesDone();
    assert.equal((await notesOf(3)).length, 2);
    assert.equal((await notesOf(4)).length, 1);
  });

  it('falls back to the mention notes when the api_key is no usable token, or the integration is inactive for pushes', async () => {
    await configure({ api_key: 'not-a-token', restrict_to_branch: '' });
    const first = await commit('refs #5');
    await git(['push', 'origin', 'HEAD:release']);
    await referencesDone();
    assert.deepEqual(await notesOf(5), [{ body: `mentioned in commit ${first}`, author_id: dev.id, system: 1 }]);

    await configure({ api_key: bot.token, restrict_to_branch: '', push_events: 'false' });
    const second = await commit('refs #6');
    await git(['push', 'origin', 'HEAD:release']);
    await referencesDone();
    assert.deepEqual(await notesOf(6), [{ body: `mentioned in commit ${second}`, author_id: dev.id, system: 1 }]);
  });
});
