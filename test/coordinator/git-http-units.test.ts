import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { basicCredentials } from '../../src/coordinator/services/repository/git-http/access.ts';
import { classifyGitPath } from '../../src/coordinator/services/repository/git-http/paths.ts';
import { computePushPolicy } from '../../src/coordinator/services/repository/git-http/push-policy.ts';
import { MalformedPushError, readReceiveCommands, scanCommands } from '../../src/coordinator/services/repository/git-http/receive-commands.ts';
import { ensurePushHooks, parseRefUpdates, preparePushHooks, PUSH_MESSAGES } from '../../src/storage/git/hooks.ts';
import { parseCgiHeaders } from '../../src/storage/git/http-backend.ts';
import type { ProjectRecord, UserRecord } from '../../src/storage/types.ts';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const ZERO = '0'.repeat(40);
const pkt = (line: string): string => `${(Buffer.byteLength(line) + 4).toString(16).padStart(4, '0')}${line}`;

describe('git over HTTP: URL classification', () => {
  it('recognises smart endpoints with and without .git, over nested namespaces', () => {
    assert.deepEqual(classifyGitPath('GET', '/a/b/c.git/info/refs', 'service=git-upload-pack'), {
      kind: 'smart', projectPath: 'a/b/c', pathInfo: '/info/refs', service: 'git-upload-pack',
    });
    assert.deepEqual(classifyGitPath('POST', '/a/c.git/git-receive-pack', ''), {
      kind: 'smart', projectPath: 'a/c', pathInfo: '/git-receive-pack', service: 'git-receive-pack',
    });
    assert.deepEqual(classifyGitPath('POST', '/a/c/git-upload-pack', ''), {
      kind: 'smart', projectPath: 'a/c', pathInfo: '/git-upload-pack', service: 'git-upload-pack',
    });
    assert.deepEqual(classifyGitPath('GET', '/a/c/info/refs', 'service=git-upload-pack'), {
      kind: 'redirect', location: '/a/c.git/info/refs?service=git-upload-pack',
    });
  });

  it('marks dumb-protocol and wrong-method requests unsupported and ignores the rest', () => {
    assert.deepEqual(classifyGitPath('GET', '/a/c.git/info/refs', ''), { kind: 'smart', projectPath: 'a/c', pathInfo: '/info/refs', service: null });
    assert.deepEqual(classifyGitPath('GET', '/a/c.git/HEAD', ''), { kind: 'unsupported' });
    assert.deepEqual(classifyGitPath('GET', '/a/c.git/git-upload-pack', ''), { kind: 'unsupported' });
    assert.deepEqual(classifyGitPath('POST', '/a/c.git/info/refs', ''), { kind: 'unsupported' });
    assert.equal(classifyGitPath('GET', '/a/c', ''), null);
    assert.equal(classifyGitPath('GET', '/api/v4/x.git/info/refs', 'service=git-upload-pack'), null);
  });
});

describe('git over HTTP: receive-pack command list', () => {
  const request = `${pkt(`${ZERO} ${A} refs/heads/new\0report-status side-band-64k\n`)}${pkt(`${A} ${B} refs/heads/main\n`)}0000PACK...`;

  it('reads the commands up to the flush packet and keeps every byte it read', async () => {
    const bytes = Buffer.from(request);
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 50), bytes.subarray(50)];
    const result = await readReceiveCommands(Readable.from(chunks));
    assert.deepEqual(result.commands, [
      { before: ZERO, after: A, ref: 'refs/heads/new' },
      { before: A, after: B, ref: 'refs/heads/main' },
    ]);
    assert.ok(result.head.length >= request.indexOf('PACK'));
    assert.ok(bytes.subarray(0, result.head.length).equals(result.head));
  });

  it('asks for more bytes until the list is complete, and rejects garbage', async () => {
    assert.equal(scanCommands(Buffer.from(request.slice(0, 60))), null);
    assert.throws(() => scanCommands(Buffer.from('zzzz')), MalformedPushError);
    await assert.rejects(readReceiveCommands(Readable.from([Buffer.from(pkt(`${ZERO} ${A} refs/heads/x\n`))])), MalformedPushError);
  });
});

describe('git over HTTP: small parsers', () => {
  it('parses CGI headers, Status included', () => {
    assert.deepEqual(parseCgiHeaders('Status: 403 Forbidden\r\nContent-Type: text/plain\r\nExpires: Fri, 01 Jan 1980'), {
      status: 403, headers: { 'content-type': 'text/plain', expires: 'Fri, 01 Jan 1980' },
    });
    assert.equal(parseCgiHeaders('Content-Type: x').status, 200);
  });

  it('parses post-receive lines and skips junk', () => {
    assert.deepEqual(parseRefUpdates(`${A} ${B} refs/heads/main\nnoise\n${B} ${ZERO} refs/tags/v1\n`), [
      { before: A, after: B, ref: 'refs/heads/main' },
      { before: B, after: ZERO, ref: 'refs/tags/v1' },
    ]);
  });

  it('decodes basic credentials (passwords may contain colons)', () => {
    const header = `Basic ${Buffer.from('gitlab-ci-token:a:b').toString('base64')}`;
    assert.deepEqual(basicCredentials(header), { username: 'gitlab-ci-token', password: 'a:b' });
    assert.equal(basicCredentials('Bearer abc'), null);
    assert.equal(basicCredentials(`Basic ${Buffer.from('nocolon').toString('base64')}`), null);
  });

  it('computes a policy per named ref: tags unprotected, branches by the rules', async () => {
    const asked: string[] = [];
    const rules = {
      protectionFor: async (_project: ProjectRecord, branch: string) => (asked.push(branch), branch.startsWith('main') ? { pattern: 'main*' } : null),
      canPush: async (_project: ProjectRecord, _actor: UserRecord | null, branch: string) => branch === 'main',
    };
    const policy = await computePushPolicy(rules, {} as ProjectRecord, {} as UserRecord, [
      { ref: 'refs/heads/main', before: A, after: B },
      { ref: 'refs/heads/main-2', before: A, after: B },
      { ref: 'refs/heads/topic', before: A, after: B },
      { ref: 'refs/tags/main', before: ZERO, after: B },
    ]);
    assert.deepEqual([...policy], [
      ['refs/heads/main', 'allowed'], ['refs/heads/main-2', 'denied'], ['refs/heads/topic', 'unprotected'], ['refs/tags/main', 'unprotected'],
    ]);
    assert.deepEqual(asked, ['main', 'main-2', 'topic']);
  });

  it('decides protected tags per command: creation by level, no moves, deletion by maintainers', async () => {
    const branchRules = { protectionFor: async () => null, canPush: async () => true };
    const tagRules = {
      protectionFor: async (_project: ProjectRecord, tag: string) => (tag.startsWith('v') ? 40 : null),
      canCreate: async (_project: ProjectRecord, _actor: UserRecord | null, tag: string) => tag === 'v-ok',
      canDelete: async (_project: ProjectRecord, _actor: UserRecord | null, tag: string) => tag === 'v-gone',
    };
    const policy = await computePushPolicy(branchRules, {} as ProjectRecord, {} as UserRecord, [
      { ref: 'refs/tags/v-ok', before: ZERO, after: B },
      { ref: 'refs/tags/v-new', before: ZERO, after: B },
      { ref: 'refs/tags/v-moved', before: A, after: B },
      { ref: 'refs/tags/v-gone', before: A, after: ZERO },
      { ref: 'refs/tags/v-kept', before: A, after: ZERO },
      { ref: 'refs/tags/free', before: A, after: B },
    ], tagRules);
    assert.deepEqual([...policy], [
      ['refs/tags/v-ok', 'unprotected'], ['refs/tags/v-new', 'tag-create'], ['refs/tags/v-moved', 'tag-update'],
      ['refs/tags/v-gone', 'unprotected'], ['refs/tags/v-kept', 'tag-delete'], ['refs/tags/free', 'unprotected'],
    ]);
  });
});

describe('git over HTTP: hook scripts', () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'gantry-hooks-'));
  after(() => rmSync(directory, { recursive: true, force: true }));
  const runHook = (name: string, input: string, environment: Record<string, string>) =>
    spawnSync('sh', [path.join(directory, name)], { input, env: { PATH: process.env.PATH, ...environment }, encoding: 'utf8' });

  it('installs executable hooks idempotently, rewriting a changed script', async () => {
    await ensurePushHooks(directory);
    assert.equal(statSync(path.join(directory, 'pre-receive')).mode & 0o111, 0o111);
    writeFileSync(path.join(directory, 'post-receive'), 'tampered');
    await ensurePushHooks(directory);
    assert.notEqual(readFileSync(path.join(directory, 'post-receive'), 'utf8'), 'tampered');
    assert.match(readFileSync(path.join(directory, 'post-receive'), 'utf8'), /GANTRY_PUSH_LOG/);
  });

  it('refuses pushes naming more refs than the coordinator checked, and deletions of protected refs', () => {
    const environment = { GANTRY_PUSH_HOOKS: '1', GANTRY_PUSH_REF_COUNT: '1' };
    const unchecked = runHook('pre-receive', `${A} ${B} refs/heads/a\n${A} ${B} refs/heads/b\n`, { ...environment, GANTRY_PUSH_POLICY: '' });
    assert.equal(unchecked.status, 1);
    assert.equal(unchecked.stderr.trim(), PUSH_MESSAGES.unchecked);
    const deletion = runHook('pre-receive', `${A} ${ZERO} refs/heads/main\n`, { ...environment, GANTRY_PUSH_POLICY: 'denied refs/heads/x\nallowed refs/heads/main\n' });
    assert.equal(deletion.status, 1);
    assert.equal(deletion.stderr.trim(), PUSH_MESSAGES.protectedDelete);
    const allowed = runHook('pre-receive', `${ZERO} ${B} refs/heads/main\n`, { ...environment, GANTRY_PUSH_POLICY: 'allowed refs/heads/main\n' });
    assert.equal(allowed.status, 0, allowed.stderr);
    const denied = runHook('pre-receive', `${ZERO} ${B} refs/heads/main\n`, { ...environment, GANTRY_PUSH_POLICY: 'denied refs/heads/main\n' });
    assert.equal(denied.stderr.trim(), PUSH_MESSAGES.protectedPush);
    const foreign = runHook('pre-receive', `${A} ${B} refs/heads/main\n`, {});
    assert.equal(foreign.status, 0);
  });

  it('refuses the protected-tag changes the policy names, with GitLab\'s words', () => {
    const environment = { GANTRY_PUSH_HOOKS: '1', GANTRY_PUSH_REF_COUNT: '1' };
    const cases = [
      ['tag-create', `${ZERO} ${B} refs/tags/v1\n`, PUSH_MESSAGES.protectedTagCreate],
      ['tag-update', `${A} ${B} refs/tags/v1\n`, PUSH_MESSAGES.protectedTagUpdate],
      ['tag-delete', `${A} ${ZERO} refs/tags/v1\n`, PUSH_MESSAGES.protectedTagDelete],
    ] as const;
    for (const [state, input, message] of cases) {
      const result = runHook('pre-receive', input, { ...environment, GANTRY_PUSH_POLICY: `${state} refs/tags/v1\n` });
      assert.equal(result.status, 1, state);
      assert.equal(result.stderr.trim(), message);
    }
  });

  it('reads a large policy from a file', async () => {
    const refs = Array.from({ length: 1500 }, (_, index) => `refs/heads/protected/branch-number-${index}`);
    const setup = await preparePushHooks(directory, new Map(refs.map((ref) => [ref, 'denied'] as const)), 1);
    assert.ok(setup.environment.GANTRY_PUSH_POLICY_FILE);
    assert.equal(setup.environment.GANTRY_PUSH_POLICY, undefined);
    const result = runHook('pre-receive', `${ZERO} ${B} ${refs[1200]}\n`, setup.environment);
    assert.equal(result.stderr.trim(), PUSH_MESSAGES.protectedPush);
    assert.deepEqual(await setup.acceptedUpdates(), []);
    assert.equal(existsSync(setup.environment.GANTRY_PUSH_POLICY_FILE), false);
  });
});
