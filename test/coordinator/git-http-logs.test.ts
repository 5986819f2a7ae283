import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/shared/logger.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

const CHALLENGE = 'HTTP Basic: Access denied';
const DEBUG = 20;
const INFO = 30;

describe('git over HTTP: log lines of the credential challenge', () => {
  const lines: Array<{ level: number; msg: string }> = [];
  let fixture: GitHttpFixture;
  let developer: TestUser;

  before(async () => {
    const logger = createLogger({
      level: 'debug',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
          done();
        },
      }),
    });
    fixture = await startGitHttpFixture({ coordinator: { logger } });
    developer = await makeUser(fixture.gantry, 'logdev');
    const group = await makeGroup(fixture.gantry, 'logs');
    const project = await fixture.project(group.id, 'private', { withReadme: true });
    await addMember(fixture.gantry, { type: 'project', id: project.id }, developer.id, 30);
  });
  after(() => fixture.close());

  it("logs git's anonymous first try at debug, and a wrong password at info", async () => {
    lines.length = 0;
    const clone = await fixture.git(['clone', fixture.url('logs/private', { user: developer.username, secret: developer.token }), 'good']);
    assert.equal(clone.code, 0, clone.stderr);
    const challenges = lines.filter((line) => line.msg === CHALLENGE);
    assert.ok(challenges.length > 0, 'git asked without credentials first');
    assert.deepEqual(challenges.map((line) => line.level), challenges.map(() => DEBUG));

    lines.length = 0;
    const refused = await fixture.git(['clone', fixture.url('logs/private', { user: developer.username, secret: 'wrong' }), 'bad']);
    assert.notEqual(refused.code, 0);
    assert.ok(lines.some((line) => line.msg === CHALLENGE && line.level === INFO), 'a refused credential is worth an info line');
  });
});
