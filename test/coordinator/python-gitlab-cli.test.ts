import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { execa } from '#deps/execa';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

/**
 * python-gitlab's command line (`gitlab`, Debian's python3-gitlab 3.12) on issues, milestones,
 * labels, users and groups against a served coordinator, as root.
 */
describe('python-gitlab CLI: issues, milestones, labels, users and groups', () => {
  let gantry: TestCoordinator;
  let configDir: string;
  let config: string;

  /** Runs one CLI command; answers its exit code and its JSON output (or its error text). */
  const cli = async (...args: string[]): Promise<{ exitCode: number; json: unknown; text: string }> => {
    const run = await execa('/usr/bin/python3', ['-W', 'ignore', '-m', 'gitlab', '-c', config, '-o', 'json', ...args], { reject: false, timeout: 120_000 });
    let json: unknown;
    try {
      json = run.stdout === '' ? undefined : JSON.parse(run.stdout);
    } catch {
      json = undefined;
    }
    return { exitCode: run.exitCode ?? -1, json, text: `${run.stdout}\n${run.stderr}` };
  };
  const record = (value: unknown) => value as Record<string, unknown>;
  const list = (value: unknown) => value as Array<Record<string, unknown>>;

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = gantry.coordinator.app.server.address() as AddressInfo;
    configDir = mkdtempSync(path.join(tmpdir(), 'gantry-cli-'));
    config = path.join(configDir, 'python-gitlab.cfg');
    writeFileSync(config, `[global]\ndefault = gantry\n\n[gantry]\nurl = http://127.0.0.1:${port}\nprivate_token = ${gantry.rootToken}\napi_version = 4\n`);
  });
  after(async () => {
    await gantry.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('creates a group, a project in it and issues; lists, closes and reads participants; marks a todo', async () => {
    const group = await cli('group', 'create', '--name', 'Team', '--path', 'team');
    assert.equal(group.exitCode, 0, group.text);
    const project = await cli('project', 'create', '--name', 'app', '--namespace-id', String(record(group.json).id));
    assert.equal(project.exitCode, 0, project.text);
    const projectId = String(record(project.json).id);
    const issue = await cli('project-issue', 'create', '--project-id', projectId, '--title', 'First', '--labels', 'bug,ui');
    assert.deepEqual([issue.exitCode, record(issue.json).iid, record(issue.json).labels], [0, 1, ['bug', 'ui']], issue.text);
    const listed = await cli('project-issue', 'list', '--project-id', projectId, '--labels', 'bug');
    assert.deepEqual(list(listed.json).map((item) => item.title), ['First']);
    const closed = await cli('project-issue', 'update', '--project-id', projectId, '--iid', '1', '--state-event', 'close');
    assert.equal(record(closed.json).state, 'closed', closed.text);
    const blank = await cli('project-issue', 'update', '--project-id', projectId, '--iid', '1', '--title', '');
    assert.notEqual(blank.exitCode, 0);
    assert.match(blank.text, /400: \{'title': \["can't be blank"\]\}/);
    const participants = await cli('project-issue', 'participants', '--project-id', projectId, '--iid', '1');
    assert.deepEqual(list(participants.json).map((user) => user.username), ['root'], participants.text);
    const todo = await cli('project-issue', 'todo', '--project-id', projectId, '--iid', '1');
    assert.equal(todo.exitCode, 0, todo.text);
    const todos = await gantry.api('GET', '/todos');
    assert.deepEqual(todos.list.map((item) => [item.action_name, item.target_type]), [['marked', 'Issue']]);
  });

  it('creates, closes and lists milestones; subscribes to a group label', async () => {
    const milestone = await cli('group-milestone', 'create', '--group-id', 'team', '--title', 'v1', '--due-date', '2030-01-01');
    assert.equal(milestone.exitCode, 0, milestone.text);
    const closed = await cli('group-milestone', 'update', '--group-id', 'team', '--id', String(record(milestone.json).id), '--state-event', 'close');
    assert.equal(record(closed.json).state, 'closed', closed.text);
    assert.deepEqual(list((await cli('group-milestone', 'list', '--group-id', 'team', '--state', 'closed')).json).map((item) => item.title), ['v1']);
    const label = await cli('group-label', 'create', '--group-id', 'team', '--name', 'area', '--color', '#00FF00');
    assert.equal(label.exitCode, 0, label.text);
    const subscribed = await cli('group-label', 'subscribe', '--group-id', 'team', '--name', 'area');
    assert.equal(subscribed.exitCode, 0, subscribed.text);
    assert.equal((await gantry.api('GET', '/groups/team/labels/area')).json.subscribed, true);
  });

  it('lists groups by min_access_level and owned projects; creates, blocks and filters users', async () => {
    const owned = await cli('group', 'list', '--min-access-level', '50');
    assert.deepEqual(list(owned.json).map((group) => group.full_path), ['team'], owned.text);
    const projects = await cli('project', 'list', '--owned', 'true');
    assert.deepEqual(list(projects.json).map((project) => project.path_with_namespace), ['team/app'], projects.text);
    const user = await cli('user', 'create', '--email', 'dana@example.com', '--username', 'dana', '--name', 'Dana', '--password', 'secret-password-1');
    assert.equal(user.exitCode, 0, user.text);
    const userId = String(record(user.json).id);
    assert.equal((await cli('user', 'block', '--id', userId)).exitCode, 0);
    assert.deepEqual(list((await cli('user', 'list', '--blocked', 'true')).json).map((item) => item.username), ['dana']);
    assert.equal((await cli('user', 'unblock', '--id', userId)).exitCode, 0);
    const halfIdentity = await cli('user', 'list', '--extern-uid', 'uid=dana');
    assert.notEqual(halfIdentity.exitCode, 0);
    assert.match(halfIdentity.text, /400: extern_uid, provider provide all or none of parameters/);
  });
});
