import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { gitSucceeds, startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

function maildirMessages(dataDir: string): string[] {
  const folder = path.join(dataDir, 'mail', 'new');
  try {
    return readdirSync(folder)
      .sort()
      .map((name) => readFileSync(path.join(folder, name), 'utf8'));
  } catch {
    return [];
  }
}

async function commitSha(gantry: TestCoordinator, projectId: number): Promise<string> {
  const commit = await gantry.api('GET', `/projects/${projectId}/repository/commits/main`);
  assert.equal(commit.status, 200, commit.text);
  return String(commit.json.id);
}

describe('emails-on-push and pipelines-email deliver to the maildir', () => {
  let fixture: GitHttpFixture;
  let project: ProjectRecord;
  let cwd: string;
  const git = (...args: string[]): Promise<string> => gitSucceeds(fixture, cwd, args);
  const pushMails = () => maildirMessages(fixture.gantry.dataDir).filter((text) => /^X-Gitlab-Commit:/im.test(text));
  const pipelineMails = () => maildirMessages(fixture.gantry.dataDir).filter((text) => /^X-Gitlab-Pipeline-Id:/im.test(text));

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50 } } });
    const group = await makeGroup(fixture.gantry, 'mail-team');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('mail-team/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
  });
  after(() => fixture.close());

  it('mails the commits and the diff of a push to every recipient', async () => {
    const saved = await fixture.gantry.api('PUT', `/projects/${project.id}/services/emails-on-push`, { body: { recipients: 'team@example.com  lead@example.com' } });
    assert.equal(saved.status, 200, saved.text);
    writeFileSync(path.join(cwd, 'hello.txt'), 'hello from the push\n');
    await git('add', '.');
    await git('commit', '-m', 'Add a greeting');
    await git('push', 'origin', 'HEAD:main');
    await waitUntil(() => pushMails().length === 1, 'the push email');
    const [mail] = pushMails();
    assert.match(mail!, /^To: team@example\.com, lead@example\.com$/m);
    assert.match(mail!, /^Subject: \[Git\]\[mail-team\/app\]\[main\] Add a greeting$/m);
    assert.match(mail!, /^From: gantry@gantry\.test$/m);
    assert.match(mail!, /pushed to branch main at mail-team\/app/);
    assert.match(mail!, /^- A hello\.txt$/m);
    assert.match(mail!, /^\+hello from the push$/m);
  });

  it('leaves the diffs out with disable_diffs, keeping the list of changed files', async () => {
    await fixture.gantry.api('PUT', `/projects/${project.id}/services/emails-on-push`, { body: { recipients: 'team@example.com', disable_diffs: true } });
    writeFileSync(path.join(cwd, 'hello.txt'), 'changed again\n');
    await git('commit', '-am', 'Change the greeting');
    await git('push', 'origin', 'HEAD:main');
    await waitUntil(() => pushMails().length === 2, 'the second push email');
    const mail = pushMails().find((text) => text.includes('Change the greeting'))!;
    assert.match(mail, /^- M hello\.txt$/m);
    assert.doesNotMatch(mail, /changed again/);
    assert.doesNotMatch(mail, /^Changes:$/m);
  });

  it('mails a failed pipeline to the recipients and the pusher, and no success with notify_only_broken_pipelines', async () => {
    const saved = await fixture.gantry.api('PUT', `/projects/${project.id}/services/pipelines-email`, {
      body: { recipients: 'ci@example.com,qa@example.com', notify_only_broken_pipelines: true, add_pusher: true },
    });
    assert.equal(saved.status, 200, saved.text);
    const sha = await commitSha(fixture.gantry, project.id);
    const passed = await fixture.gantry.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'success', name: 'lint' } });
    assert.equal(passed.status, 201, passed.text);
    const failed = await fixture.gantry.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'failed', name: 'test' } });
    assert.equal(failed.status, 201, failed.text);
    await waitUntil(() => pipelineMails().length >= 1, 'the pipeline email');
    const mails = pipelineMails();
    assert.equal(mails.length, 1, 'only the broken pipeline is mailed');
    const root = await fixture.gantry.api('GET', '/user');
    assert.match(mails[0]!, new RegExp(`^To: ci@example\\.com, qa@example\\.com, ${String(root.json.email).replace(/\./g, '\\.')}$`, 'm'));
    assert.match(mails[0]!, /^Subject: Failed pipeline for main \| mail-team\/app \| [0-9a-f]{8}$/m);
    assert.match(mails[0]!, /^X-Gitlab-Pipeline-Status: failed$/m);
  });
});

/** A loopback SMTP receiver: enough of RFC 5321 for nodemailer (EHLO, MAIL, RCPT, DATA, QUIT). */
function startSmtpReceiver(): Promise<{ server: Server; port: number; messages: string[] }> {
  const messages: string[] = [];
  const server = createServer((socket: Socket) => {
    let buffer = '';
    let inData = false;
    socket.write('220 receiver ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffer.slice(0, end));
          buffer = buffer.slice(end + 5);
          inData = false;
          socket.write('250 queued\r\n');
          continue;
        }
        const newline = buffer.indexOf('\r\n');
        if (newline < 0) return;
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 receiver\r\n');
        else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as AddressInfo).port, messages })));
}

describe('integration mail through SMTP when configured', () => {
  let receiver: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let gantry: TestCoordinator;

  before(async () => {
    receiver = await startSmtpReceiver();
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 }, mail: { from: 'ci@gantry.test', smtp: { host: '127.0.0.1', port: receiver.port } } } });
  });
  after(async () => {
    await gantry.close();
    await new Promise((resolve) => receiver.server.close(resolve));
  });

  it('hands a pipeline email to the SMTP server instead of the maildir', async () => {
    const group = await makeGroup(gantry, 'smtp-team');
    const project = await makeProjectWithRepository(gantry, group.id, 'app', { withReadme: true });
    await gantry.api('PUT', `/projects/${project.id}/services/pipelines-email`, { body: { recipients: 'ci@example.com' } });
    const sha = await commitSha(gantry, project.id);
    const failed = await gantry.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'failed', name: 'test' } });
    assert.equal(failed.status, 201, failed.text);
    await waitUntil(() => receiver.messages.length === 1, 'the SMTP delivery');
    assert.match(receiver.messages[0]!, /^Subject: Failed pipeline for main \| smtp-team\/app \| [0-9a-f]{8}\r?$/m);
    assert.match(receiver.messages[0]!, /^From: ci@gantry\.test\r?$/m);
    assert.deepEqual(maildirMessages(gantry.dataDir), []);
  });
});
