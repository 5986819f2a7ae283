import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DELIVER_TASK } from '../../src/coordinator/services/integrations/outbound-deliveries.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { gitSucceeds, startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';
import { integrationReceiver as receiver } from './integrations-receiver.ts';

/** An irker daemon on loopback: the lines each connection wrote. */
async function irkerDaemon(): Promise<{ server: TcpServer; port: number; connections: string[][] }> {
  const connections: string[][] = [];
  const server = createTcpServer((socket) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('end', () => connections.push(text.split('\n').filter(Boolean)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, connections };
}

describe('chat C, the IRC gateway and Jira reach receivers the settings name, through the task queue', () => {
  let fixture: GitHttpFixture;
  let project: ProjectRecord;
  let cwd: string;
  let pusherName: string;
  const git = (...args: string[]): Promise<string> => gitSucceeds(fixture, cwd, args);
  const deliveryTasks = () => fixture.gantry.coordinator.context.db.selectFrom('tasks').select(['payload', 'attempts', 'last_error']).where('kind', '=', DELIVER_TASK).execute();
  const put = async (segment: string, body: Record<string, unknown>) => {
    const saved = await fixture.gantry.api('PUT', `/projects/${project.id}/services/${segment}`, { body });
    assert.equal(saved.status, 200, saved.text);
  };
  const remove = (segment: string) => fixture.gantry.api('DELETE', `/projects/${project.id}/services/${segment}`);

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50 } } });
    const group = await makeGroup(fixture.gantry, 'team');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('team/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
    const changed = await fixture.gantry.api('PUT', '/application/settings', { body: { allow_local_requests_from_web_hooks_and_services: true } });
    assert.equal(changed.status, 200, changed.text);
    pusherName = (await fixture.gantry.api('GET', '/user')).json.name as string;
  });
  after(() => fixture.close());

  it('lists each commit\'s added, modified and removed files in the push data (drone receives it)', async () => {
    const drone = await receiver(() => ({ status: 200 }));
    try {
      await put('drone-ci', { drone_url: drone.base, token: 't' });
      await git('rm', '-q', 'README.md');
      await git('commit', '-q', '-m', 'remove the readme');
      for (const name of ['a.txt', 'dir/b c.txt']) {
        await mkdir(path.join(cwd, path.dirname(name)), { recursive: true });
        await writeFile(path.join(cwd, name), `${name}\n`);
      }
      await git('add', '.');
      await git('commit', '-q', '-m', 'add two files');
      await appendFile(path.join(cwd, 'a.txt'), 'more\n');
      await git('commit', '-q', '-am', 'change one');
      await git('push', '-q', 'origin', 'HEAD:main');
      await waitUntil(() => drone.requests.length === 1, 'the drone request');
      const data = JSON.parse(drone.requests[0]!.body) as { commits: Array<{ title: string; added: string[]; modified: string[]; removed: string[] }> };
      assert.deepEqual(
        data.commits.map((commit) => [commit.title, commit.added, commit.modified, commit.removed]),
        [
          ['remove the readme', [], [], ['README.md']],
          ['add two files', ['a.txt', 'dir/b c.txt'], [], []],
          ['change one', [], ['a.txt'], []],
        ],
      );
      await waitUntil(async () => (await deliveryTasks()).length === 0, 'the delivery to complete');
    } finally {
      await remove('drone-ci');
      drone.server.close();
    }
  });

  it('chat C posts GitLab\'s HipChat push message to the room on its server, v2 by default and v1 when asked', async () => {
    const hipchat = await receiver(() => ({ status: 204 }));
    try {
      await put('hipchat', { token: 'room token', room: 'dev room', server: `${hipchat.base}/`, color: 'green', notify: 'true' });
      await git('commit', '-q', '--allow-empty', '-m', 'Use <b>bold</b> words\n\nbody');
      const head = await git('rev-parse', 'HEAD');
      const before = await git('rev-parse', 'HEAD~1');
      await git('push', '-q', 'origin', 'HEAD:main');
      await waitUntil(() => hipchat.requests.length === 1, 'the room notification');
      const [posted] = hipchat.requests;
      assert.equal(posted?.method, 'POST');
      assert.equal(posted?.url, '/v2/room/dev%20room/notification?auth_token=room+token');
      const body = JSON.parse(posted?.body ?? '{}') as Record<string, unknown>;
      assert.deepEqual([body.room_id, body.from, body.message_format, body.color, body.notify], ['dev room', 'GitLab', 'html', 'green', true]);
      const web = 'http://gantry.test/team/app';
      assert.equal(
        body.message,
        `${pusherName} pushed to branch <a href="${web}/commits/main">main</a> of <a href="${web}">team/app</a> (<a href="${web}/compare/${before}...${head}">Compare changes</a>)` +
          `<br /> - Use &lt;b&gt;bold&lt;/b&gt; words (<a href="${web}/-/commit/${head}">${head.slice(0, 6)}</a>)`,
      );

      await put('hipchat', { token: 'room token', api_version: 'v1', notify: false });
      await git('push', '-q', 'origin', 'HEAD:refs/heads/topic');
      await waitUntil(() => hipchat.requests.length === 2, 'the v1 message');
      assert.equal(hipchat.requests[1]?.url, '/v1/rooms/message?auth_token=room+token');
      const form = new URLSearchParams(hipchat.requests[1]?.body);
      assert.deepEqual([form.get('room_id'), form.get('from'), form.get('notify'), form.get('color')], ['dev room', 'GitLab', '0', 'green']);
      assert.equal(form.get('message'), `${pusherName} pushed new branch <a href="${web}/commits/topic">topic</a> to <a href="${web}">team/app</a>\n`);
      await waitUntil(async () => (await deliveryTasks()).length === 0, 'the deliveries to complete');
    } finally {
      await remove('hipchat');
      hipchat.server.close();
    }
  });

  it('the IRC gateway writes GitLab\'s irker JSON lines over TCP to the configured daemon', async () => {
    const irker = await irkerDaemon();
    try {
      await put('irker', { recipients: 'irc://irc.example.net/#ops  dev not-a-uri://x', default_irc_uri: 'irc://irc.example.net:6697/', server_host: '127.0.0.1', server_port: irker.port });
      await git('checkout', '-q', '-b', 'feature');
      await writeFile(path.join(cwd, 'c.txt'), 'c\n');
      await git('add', 'c.txt');
      await git('commit', '-q', '-m', 'Add c');
      const base = await git('rev-parse', 'HEAD~1');
      const head = await git('rev-parse', 'HEAD');
      await git('push', '-q', 'origin', 'feature');
      await waitUntil(() => irker.connections.length === 1, 'the irker connection');
      const lines = irker.connections[0]!.map((line) => JSON.parse(line) as { to: string[]; privmsg: string });
      assert.deepEqual(lines[0]?.to, ['irc://irc.example.net/#ops', 'irc://irc.example.net:6697/dev'], 'a recipient that makes no irc URI is dropped');
      assert.deepEqual(lines.map((line) => line.privmsg), [
        `[app] ${pusherName} has created a new branch feature: http://gantry.test/team/app/branches`,
        `[app] ${pusherName} pushed 1 new commit to feature: http://gantry.test/team/app/compare/${base.slice(0, 8)}...${head.slice(0, 8)}`,
        `app/feature ${head.slice(0, 8)} Test Author (1 file): Add c`,
      ]);
      await waitUntil(async () => (await deliveryTasks()).length === 0, 'the delivery to complete');
    } finally {
      await remove('irker');
      await git('checkout', '-q', 'main');
      irker.server.close();
    }
  });
  it('Jira comments on the issues a commit mentions, once even when retried, and moves those it closes on the default branch', async () => {
    const comments = new Map<string, string[]>([['PROJ-1', []], ['PROJ-2', []]]);
    const resolved = new Set<string>();
    let failNextComment = true;
    const jira = await receiver((request) => {
      const match = /^\/jira\/rest\/api\/2\/issue\/([A-Z0-9-]+)(\/comment|\/transitions)?(\?.*)?$/.exec(request.url);
      const key = match?.[1] ?? '';
      const issueComments = comments.get(key);
      if (!match || !issueComments) return { status: 404, body: '{"errorMessages":["Issue does not exist"]}' };
      if (match[2] === '/comment' && request.method === 'GET') return { status: 200, body: JSON.stringify({ comments: issueComments.map((body) => ({ body })) }) };
      if (match[2] === '/comment' && request.method === 'POST') {
        if (failNextComment) {
          failNextComment = false;
          issueComments.push((JSON.parse(request.body) as { body: string }).body);
          return { status: 503 };
        }
        issueComments.push((JSON.parse(request.body) as { body: string }).body);
        return { status: 201, body: '{}' };
      }
      if (match[2] === '/transitions') {
        if ((JSON.parse(request.body) as { transition: { id: string } }).transition.id === '31') resolved.add(key);
        return { status: 204 };
      }
      return { status: 200, body: JSON.stringify({ key, fields: { resolution: resolved.has(key) ? { name: 'Done' } : null } }) };
    });
    try {
      await put('jira', { url: `${jira.base}/jira/`, project_key: 'PROJ', username: 'bot', password: 'jira pass', jira_issue_transition_id: 31 });
      await git('checkout', '-q', '-b', 'jira-topic');
      await git('commit', '-q', '--allow-empty', '-m', 'Work on PROJ-1, PROJ-404\n\nCloses PROJ-2');
      const topic = await git('rev-parse', 'HEAD');
      await git('push', '-q', 'origin', 'jira-topic');
      await waitUntil(async () => (await deliveryTasks()).length === 0 && comments.get('PROJ-2')!.length === 1, 'the comments, after one retry', { timeoutMs: 20_000 });
      const mention = `[${pusherName}|http://gantry.test/root] mentioned this issue in [a commit of team / app|http://gantry.test/team/app/-/commit/${topic}]:\n'Work on PROJ-1, PROJ-404'`;
      assert.deepEqual(comments.get('PROJ-1'), [mention], 'the comment the failed answer kept was not written twice');
      assert.deepEqual(comments.get('PROJ-2'), [mention]);
      assert.equal(resolved.size, 0, 'not closed from a branch that is not the default one');
      assert.equal(jira.requests[0]?.headers.authorization, `Basic ${Buffer.from('bot:jira pass').toString('base64')}`);
      assert.ok(jira.requests.some((request) => request.url === '/jira/rest/api/2/issue/PROJ-404/comment'), 'an unknown issue is asked for and skipped');

      await git('checkout', '-q', 'main');
      await git('commit', '-q', '--allow-empty', '-m', 'Finish\n\nfixes: PROJ-2');
      const fix = await git('rev-parse', 'HEAD');
      await git('push', '-q', 'origin', 'HEAD:main');
      await waitUntil(async () => (await deliveryTasks()).length === 0 && comments.get('PROJ-2')!.length === 3, 'the mention and the solved comment');
      assert.ok(resolved.has('PROJ-2'));
      assert.equal(comments.get('PROJ-2')?.[2], `Issue solved with [${fix}|http://gantry.test/team/app/-/commit/${fix}].`);
    } finally {
      await remove('jira');
      jira.server.close();
    }
  });
});
