import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { hookReceiver, type HookReceiver } from './hooks-receiver.ts';

describe('system hooks and a git push of several refs', () => {
  let fixture: GitHttpFixture;
  let target: HookReceiver;

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50, hooks: { retryBaseMs: 100 } } } });
    target = await hookReceiver();
  });
  after(async () => {
    await target.close();
    await fixture.close();
  });

  it('sends one repository_update listing every ref the push updated, after a push event per branch', async () => {
    const created = await fixture.gantry.api('POST', '/hooks', { body: { url: `${target.base}/system` } });
    assert.equal(created.status, 201, created.text);
    const project = await fixture.project(1, 'several', { withReadme: true });
    const cwd = path.join(fixture.workDir, 'several');
    const git = async (args: string[]): Promise<string> => {
      const result = await fixture.git(args, { cwd });
      assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
      return result.stdout.trim();
    };
    const clone = await fixture.git(['clone', fixture.url('root/several', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
    const base = await git(['rev-parse', 'HEAD']);
    await git(['commit', '--allow-empty', '-m', 'on main']);
    const main = await git(['rev-parse', 'HEAD']);
    await git(['push', 'origin', 'HEAD:main', `${base}:refs/heads/side`, `${base}:refs/tags/v1`]);

    const zero = '0'.repeat(40);
    const updates = () => target.requests.filter((request) => request.body.event_name === 'repository_update');
    await waitUntil(() => updates().length >= 1, 'the repository_update');
    const [update] = updates();
    assert.equal(update!.body.project_id, project.id);
    const changes = update!.body.changes as Array<{ before: string; after: string; ref: string }>;
    assert.deepEqual(
      [...changes].sort((a, b) => a.ref.localeCompare(b.ref)),
      [
        { before: base, after: main, ref: 'refs/heads/main' },
        { before: zero, after: base, ref: 'refs/heads/side' },
        { before: zero, after: base, ref: 'refs/tags/v1' },
      ],
    );
    assert.deepEqual([...(update!.body.refs as string[])].sort(), ['refs/heads/main', 'refs/heads/side', 'refs/tags/v1']);
    // Deliveries to one hook keep their order: both branch pushes came before the update, and no other update.
    const pushes = target.requests.slice(0, target.requests.indexOf(update!)).filter((request) => request.body.event_name === 'push');
    assert.deepEqual(pushes.map((request) => request.body.ref).sort(), ['refs/heads/main', 'refs/heads/side']);
    assert.equal(updates().length, 1);
  });
});
