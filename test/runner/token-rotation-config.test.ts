/**
 * The pieces of token rotation without a coordinator: when a token is due (gitlab-runner's
 * 75 % of its lifetime) and how config.toml is rewritten with the new token and its dates.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseRunnerConfig } from '../../src/runner/config/config.ts';
import { replaceRunnerToken } from '../../src/runner/config/write.ts';
import { tokenResetTime } from '../../src/runner/daemon/token-rotation.ts';

describe('tokenResetTime', () => {
  it('is 75 % into the lifetime from token_obtained_at; null without an expiry; at once when the start is unknown', () => {
    assert.equal(tokenResetTime({ tokenObtainedAt: '2026-01-01T00:00:00Z', tokenExpiresAt: '2026-01-01T04:00:00Z' }), Date.parse('2026-01-01T03:00:00Z'));
    assert.equal(tokenResetTime({ tokenObtainedAt: '2026-01-01T00:00:00Z', tokenExpiresAt: '2026-01-01T00:00:00.000+01:00' }), Date.parse('2026-01-01T00:00:00Z'), 'an expiry before the start: due at the start');
    assert.equal(tokenResetTime({ tokenObtainedAt: '2026-01-01T00:00:00Z' }), null);
    assert.equal(tokenResetTime({ tokenExpiresAt: 'not a date' }), null);
    assert.equal(tokenResetTime({ tokenExpiresAt: '2026-01-01T04:00:00Z' }), 0);
  });
});

describe('replaceRunnerToken', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-token-write-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const update = { token: 'glrt-new"quoted\\', obtainedAt: new Date('2026-03-01T10:00:00Z'), expiresAt: new Date('2026-03-01T14:00:00.250Z') };

  it('changes only the token lines of every entry with that url and token, adding missing dates, keeping comments', async () => {
    const file = path.join(dir, 'two.toml');
    const text = [
      'concurrent = 2 # two at once',
      '',
      '[[runners]]',
      '  name = "a"',
      '  url = "http://ci.example"',
      '  token = "glrt-old" # the old one',
      '  token_obtained_at = 2026-01-01T00:00:00Z',
      '  token_expires_at = 2026-01-01T04:00:00Z',
      '  executor = "shell"',
      '',
      '[[runners]]',
      '  name = "other url"',
      '  url = "http://elsewhere.example"',
      '  token = "glrt-old"',
      '  executor = "shell"',
      '',
      '[[runners]]',
      '  name = "b"',
      '  url = "http://ci.example"',
      '  token = "glrt-old"',
      '  executor = "docker"',
      '  [runners.docker]',
      '    image = "alpine"',
      '',
    ].join('\n');
    await writeFile(file, text);
    const written = await replaceRunnerToken(file, { url: 'http://ci.example', token: 'glrt-old' }, update);
    assert.equal(written, await readFile(file, 'utf8'));
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(written!.split('\n'), [
      'concurrent = 2 # two at once',
      '',
      '[[runners]]',
      '  name = "a"',
      '  url = "http://ci.example"',
      '  token = "glrt-new\\"quoted\\\\"',
      '  token_obtained_at = 2026-03-01T10:00:00Z',
      '  token_expires_at = 2026-03-01T14:00:00.250Z',
      '  executor = "shell"',
      '',
      '[[runners]]',
      '  name = "other url"',
      '  url = "http://elsewhere.example"',
      '  token = "glrt-old"',
      '  executor = "shell"',
      '',
      '[[runners]]',
      '  name = "b"',
      '  url = "http://ci.example"',
      '  token = "glrt-new\\"quoted\\\\"',
      '  token_obtained_at = 2026-03-01T10:00:00Z',
      '  token_expires_at = 2026-03-01T14:00:00.250Z',
      '  executor = "docker"',
      '  [runners.docker]',
      '    image = "alpine"',
      '',
    ]);
    const runners = parseRunnerConfig(written!).config.runners;
    assert.deepEqual(runners.map((entry) => [entry.token, entry.tokenObtainedAt, entry.tokenExpiresAt]), [
      [update.token, '2026-03-01T10:00:00.000Z', '2026-03-01T14:00:00.250Z'],
      ['glrt-old', undefined, undefined],
      [update.token, '2026-03-01T10:00:00.000Z', '2026-03-01T14:00:00.250Z'],
    ]);
  });

  it('removes token_expires_at when the new token does not expire; answers null (writing nothing) for a token no entry has', async () => {
    const file = path.join(dir, 'one.toml');
    const text = '[[runners]]\n  url = "http://ci.example"\n  token = "glrt-old"\n  token_expires_at = 2026-01-01T04:00:00Z\n  executor = "shell"\n';
    await writeFile(file, text);
    assert.equal(await replaceRunnerToken(file, { url: 'http://ci.example', token: 'glrt-unknown' }, update), null);
    assert.equal(await readFile(file, 'utf8'), text);
    const written = await replaceRunnerToken(file, { url: 'http://ci.example', token: 'glrt-old' }, { ...update, expiresAt: null });
    assert.equal(written, '[[runners]]\n  url = "http://ci.example"\n  token = "glrt-new\\"quoted\\\\"\n  token_obtained_at = 2026-03-01T10:00:00Z\n  executor = "shell"\n');
  });

  it('writes the file from its parsed form when the entry is laid out so that its lines cannot be edited', async () => {
    const file = path.join(dir, 'inline.toml');
    await writeFile(file, 'runners = [{ url = "http://ci.example", token = "glrt-old", executor = "shell" }]\n');
    const written = await replaceRunnerToken(file, { url: 'http://ci.example', token: 'glrt-old' }, update);
    const [entry] = parseRunnerConfig(written!).config.runners;
    assert.deepEqual([entry!.token, entry!.tokenObtainedAt, entry!.tokenExpiresAt, entry!.executor], [update.token, '2026-03-01T10:00:00.000Z', '2026-03-01T14:00:00.250Z', 'shell']);
  });
});
