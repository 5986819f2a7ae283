import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Gitlab } from '@gitbeaker/rest';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';

/** Events and e-mail addresses read by an unmodified GitLab client (@gitbeaker/rest) after a git push and an issue comment. */
describe('events and e-mail addresses through @gitbeaker/rest', () => {
  let fixture: GitHttpFixture;
  let client: InstanceType<typeof Gitlab>;
  let projectId = 0;

  before(async () => {
    fixture = await startGitHttpFixture();
    const group = await makeGroup(fixture.gantry, 'beaker');
    projectId = (await fixture.project(group.id, 'feed', { withReadme: true })).id;
    client = new Gitlab({ host: fixture.baseUrl, token: ROOT_TOKEN });
  });
  after(() => fixture.close());

  it('reads the push and comment events of a project and of its author', async () => {
    const cwd = path.join(fixture.workDir, 'feed');
    const run = async (args: string[], dir = cwd) => {
      const result = await fixture.git(args, { cwd: dir });
      assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
    };
    await run(['clone', fixture.url('beaker/feed', { user: 'root', secret: ROOT_TOKEN }), cwd], fixture.workDir);
    await run(['commit', '--allow-empty', '-m', 'Pushed by git']);
    await run(['push', 'origin', 'HEAD:main']);
    const issue = await client.Issues.create(projectId, 'Feed issue');
    await client.IssueNotes.create(projectId, issue.iid, 'A comment from gitbeaker');

    const projectEvents = async () => (await client.Events.all({ projectId, sort: 'asc' })) as unknown as Array<Record<string, unknown>>;
    await waitUntil(async () => (await projectEvents()).length === 3, 'three events of the project');
    // The push's event is recorded after the push is answered: it may come after the issue's.
    const events = await projectEvents();
    const byAction = (name: string) => events.find((event) => event.action_name === name);
    const [pushed, opened, commented] = [byAction('pushed to'), byAction('opened'), byAction('commented on')];
    assert.deepEqual([pushed?.action_name, (pushed?.push_data as Record<string, unknown>).commit_title, (pushed?.push_data as Record<string, unknown>).ref], ['pushed to', 'Pushed by git', 'main']);
    assert.deepEqual([opened?.action_name, opened?.target_type, opened?.target_iid, opened?.target_title], ['opened', 'Issue', issue.iid, 'Feed issue']);
    assert.deepEqual([commented?.action_name, commented?.target_type, (commented?.note as Record<string, unknown>).body], ['commented on', 'Note', 'A comment from gitbeaker']);
    const mine = (await client.Users.allEvents(1, { action: 'commented' })) as unknown as Array<Record<string, unknown>>;
    assert.deepEqual(mine.map((event) => event.id), [commented?.id]);
    const own = (await client.Events.all({ targetType: 'issue' })) as unknown as Array<Record<string, unknown>>;
    assert.deepEqual(own.map((event) => event.id), [opened?.id]);
  });

  it('adds, lists and removes e-mail addresses', async () => {
    const added = await client.UserEmails.add('root.beaker@example.com');
    assert.deepEqual([added.email, added.confirmed_at], ['root.beaker@example.com', null]);
    assert.deepEqual((await client.UserEmails.all()).map((email) => email.email), ['root.beaker@example.com']);
    await client.UserEmails.remove(added.id);
    assert.deepEqual(await client.UserEmails.all(), []);
    await assert.rejects(client.UserEmails.add('admin@example.com'), /has already been taken/);
  });
});
