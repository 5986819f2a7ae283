import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startGitHttpFixture, gitSucceeds, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

/** A throw-away GPG home for the test's own keys (never the coordinator's). */
const gnupgHome = mkdtempSync(path.join(tmpdir(), 'gantry-sign-'));
const gpgEnv = { ...process.env, GNUPGHOME: gnupgHome };

/** Generates a key without passphrase for `Name <email>`; its fingerprint and armored public key. */
function generateKey(name: string, email: string): { fingerprint: string; armored: string } {
  execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', `${name} <${email}>`, 'ed25519', 'default', 'never'], { env: gpgEnv, stdio: 'ignore', timeout: 60_000 });
  const colons = execFileSync('gpg', ['--with-colons', '--fingerprint', email], { env: gpgEnv, encoding: 'utf8', timeout: 30_000 });
  const fingerprint = /^fpr:+([0-9A-F]+):/m.exec(colons)?.[1] ?? '';
  return { fingerprint, armored: execFileSync('gpg', ['--armor', '--export', email], { env: gpgEnv, encoding: 'utf8', timeout: 30_000 }) };
}

describe('GET /projects/:id/repository/commits/:sha/signature', () => {
  let fixture: GitHttpFixture;
  let alice: TestUser;
  let guest: TestUser;
  let project: ProjectRecord;
  let cwd: string;
  let aliceKey: { fingerprint: string; armored: string };
  let strangerKey: { fingerprint: string; armored: string };
  let foreignEmailKey: { fingerprint: string; armored: string };
  let aliceKeyId: number;

  /** Commits (signed with `key` unless null) as committer `email`, pushes, and answers the commit id. */
  const commit = async (message: string, key: string | null, email = 'alice@example.com'): Promise<string> => {
    const env = { GNUPGHOME: gnupgHome, GIT_COMMITTER_EMAIL: email, GIT_AUTHOR_EMAIL: email };
    const signing = key ? ['-c', `user.signingkey=${key}`, 'commit', `-S${key}`] : ['commit'];
    const result = await fixture.git([...signing, '--allow-empty', '-m', message], { cwd, env });
    assert.equal(result.code, 0, result.stderr);
    await gitSucceeds(fixture, cwd, ['push', 'origin', 'HEAD:refs/heads/main']);
    return gitSucceeds(fixture, cwd, ['rev-parse', 'HEAD']);
  };
  const signature = (sha: string, token?: string | null) => fixture.gantry.api('GET', `/projects/${project.id}/repository/commits/${sha}/signature`, token === undefined ? {} : { token });

  before(async () => {
    fixture = await startGitHttpFixture();
    const { gantry } = fixture;
    alice = await makeUser(gantry, 'alice', { name: 'Alice Liddell' });
    guest = await makeUser(gantry, 'guest');
    const group = await makeGroup(gantry, 'signed');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    await addMember(gantry, { type: 'project', id: project.id }, alice.id, 40);
    await addMember(gantry, { type: 'project', id: project.id }, guest.id, 10);
    aliceKey = generateKey('Alice Liddell', 'alice@example.com');
    strangerKey = generateKey('Stranger', 'stranger@example.com');
    foreignEmailKey = generateKey('Alice Elsewhere', 'alice@elsewhere.example');
    for (const key of [aliceKey, foreignEmailKey]) {
      const added = await gantry.api('POST', '/user/gpg_keys', { token: alice.token, body: { key: key.armored } });
      assert.equal(added.status, 201, added.text);
      if (key === aliceKey) aliceKeyId = added.json.id as number;
    }
    const clone = await fixture.git(['clone', fixture.url('signed/app', { user: 'alice', secret: alice.token }), 'app']);
    assert.equal(clone.code, 0, clone.stderr);
    cwd = path.join(fixture.workDir, 'app');
  });

  after(async () => {
    await fixture?.close();
    execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env: gpgEnv, stdio: 'ignore', timeout: 30_000 });
    rmSync(gnupgHome, { recursive: true, force: true });
  });

  it("verifies a commit signed with the committer's stored key, with GitLab's fields", async () => {
    const sha = await commit('signed by alice', aliceKey.fingerprint);
    const answer = await signature(sha);
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json, {
      signature_type: 'PGP',
      verification_status: 'verified',
      gpg_key_id: aliceKeyId,
      gpg_key_primary_keyid: aliceKey.fingerprint.slice(-16),
      gpg_key_user_name: 'Alice Liddell',
      gpg_key_user_email: 'alice@example.com',
      gpg_key_subkey_id: null,
      commit_source: 'gitaly',
    });
    // By branch name too, and for a reporter-level reader (alice) as for root.
    assert.equal((await signature('main', alice.token)).json.verification_status, 'verified');
  });

  it('tells other_user, unknown_key and unverified_key apart', async () => {
    const otherCommitter = await commit('signed by alice, committed as bob', aliceKey.fingerprint, 'bob@example.com');
    assert.equal((await signature(otherCommitter)).json.verification_status, 'other_user');

    const unknown = await commit('signed by a key nobody stored', strangerKey.fingerprint);
    const unknownAnswer = await signature(unknown);
    assert.equal(unknownAnswer.json.verification_status, 'unknown_key');
    assert.equal(unknownAnswer.json.gpg_key_primary_keyid, strangerKey.fingerprint.slice(-16));
    assert.equal(unknownAnswer.json.gpg_key_id, null);

    // A key of alice's whose only user id is an email that is not hers.
    const foreign = await commit('signed with a key of another email', foreignEmailKey.fingerprint, 'alice@elsewhere.example');
    assert.equal((await signature(foreign)).json.verification_status, 'unverified_key');
  });

  it('verifies a commit signed by a signing subkey of a stored key, for a committer e-mail that is a confirmed secondary address', async () => {
    const { gantry } = fixture;
    const work = generateKey('Alice at Work', 'alice.work@example.com');
    execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-add-key', work.fingerprint, 'ed25519', 'sign', 'never'], { env: gpgEnv, stdio: 'ignore', timeout: 60_000 });
    const colons = execFileSync('gpg', ['--with-colons', '--with-subkey-fingerprint', '--list-keys', work.fingerprint], { env: gpgEnv, encoding: 'utf8', timeout: 30_000 });
    const subkeyFingerprint = /^sub:(?:.*\n)fpr:+([0-9A-F]+):/m.exec(colons)?.[1] ?? '';
    assert.match(subkeyFingerprint, /^[0-9A-F]{40}$/, colons);
    const armored = execFileSync('gpg', ['--armor', '--export', work.fingerprint], { env: gpgEnv, encoding: 'utf8', timeout: 30_000 });
    const added = await gantry.api('POST', '/user/gpg_keys', { token: alice.token, body: { key: armored } });
    assert.equal(added.status, 201, added.text);
    const sha = await commit('signed by the subkey', `${subkeyFingerprint}!`, 'alice.work@example.com');
    // Not yet one of alice's addresses: the key's only user id names nobody's e-mail of hers.
    assert.equal((await signature(sha)).json.verification_status, 'unverified_key');
    // An unconfirmed secondary address does not count; a confirmed one does.
    const unconfirmed = await gantry.api('POST', '/user/emails', { token: alice.token, body: { email: 'alice.work@example.com' } });
    assert.equal(unconfirmed.status, 201, unconfirmed.text);
    assert.equal((await signature(sha)).json.verification_status, 'unverified_key');
    assert.equal((await gantry.api('DELETE', `/user/emails/${unconfirmed.json.id}`, { token: alice.token })).status, 204);
    const confirmed = await gantry.api('POST', `/users/${alice.id}/emails`, { body: { email: 'alice.work@example.com', skip_confirmation: true } });
    assert.equal(confirmed.status, 201, confirmed.text);
    const answer = await signature(sha);
    assert.equal(answer.json.verification_status, 'verified', answer.text);
    assert.equal(answer.json.gpg_key_id, added.json.id);
    assert.equal(answer.json.gpg_key_primary_keyid, work.fingerprint.slice(-16));
    assert.equal(answer.json.gpg_key_user_email, 'alice.work@example.com');
    assert.equal(typeof answer.json.gpg_key_subkey_id, 'number');
  });

  it('answers unverified for a signature that does not hold (the signed message was changed)', async () => {
    const sha = await commit('the original message', aliceKey.fingerprint);
    const raw = await gitSucceeds(fixture, cwd, ['cat-file', 'commit', sha]);
    const forged = `${raw.replace('the original message', 'a forged message')}\n`;
    const bare = fixture.gantry.coordinator.context.repositories.open(project.id).path;
    const forgedId = execFileSync('git', ['--git-dir', bare, 'hash-object', '-t', 'commit', '-w', '--stdin'], { input: forged, encoding: 'utf8', timeout: 30_000 }).trim();
    assert.notEqual(forgedId, sha);
    const answer = await signature(forgedId);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.json.verification_status, 'unverified');
    assert.equal(answer.json.gpg_key_primary_keyid, aliceKey.fingerprint.slice(-16));
  });

  it('answers 404 Signature Not Found for an unsigned commit and 404 Commit Not Found for unknown or bad shas', async () => {
    const unsigned = await commit('not signed', null);
    assert.deepEqual((await signature(unsigned)).body, { message: '404 Signature Not Found' });
    for (const sha of ['0123456789abcdef0123456789abcdef01234567', 'no-such-branch', 'main..main', '-x']) {
      const answer = await signature(encodeURIComponent(sha));
      assert.equal(answer.status, 404, sha);
      assert.deepEqual(answer.body, { message: '404 Commit Not Found' }, sha);
    }
  });

  it('refuses anonymous callers and guests of a private project, and unknown projects', async () => {
    const sha = await commit('signed again', aliceKey.fingerprint);
    assert.deepEqual((await signature(sha, null)).body, { message: '404 Project Not Found' });
    assert.deepEqual((await signature(sha, guest.token)).body, { message: '403 Forbidden' });
    assert.deepEqual((await fixture.gantry.api('GET', `/projects/999999/repository/commits/${sha}/signature`)).body, { message: '404 Project Not Found' });
  });
});
