import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  parseSshPublicKey,
  sshKeyRestrictionError,
  type ParsedSshKey,
  type SshKeyRestrictions,
} from '../../src/coordinator/services/accounts/keys/ssh-key.ts';

const workDir = mkdtempSync(join(tmpdir(), 'gantry-ssh-key-'));
after(() => rmSync(workDir, { recursive: true, force: true }));

interface GeneratedKey {
  line: string;
  md5: string;
  sha256: string;
  bits: number;
}

let counter = 0;
function generate(type: string, bits?: number): GeneratedKey {
  counter += 1;
  const file = join(workDir, `key${counter}`);
  const args = ['-q', '-t', type, '-N', '', '-C', `user${counter}@example.com`, '-f', file];
  if (bits !== undefined) args.push('-b', String(bits));
  execFileSync('ssh-keygen', args);
  const line = readFileSync(`${file}.pub`, 'utf8').trim();
  const fingerprint = (hash: string): string[] =>
    execFileSync('ssh-keygen', ['-l', '-E', hash, '-f', `${file}.pub`], { encoding: 'utf8' }).trim().split(/\s+/);
  const [bitsText, md5] = fingerprint('md5');
  const [, sha256] = fingerprint('sha256');
  return { line, md5: (md5 ?? '').replace(/^MD5:/, ''), sha256: sha256 ?? '', bits: Number(bitsText) };
}

const ANY_SIZE: SshKeyRestrictions = {
  rsa_key_restriction: 0,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ed25519_key_restriction: 0,
};

function parsed(line: string): ParsedSshKey {
  const key = parseSshPublicKey(line);
  assert.ok(key, `expected ${line} to parse`);
  return key;
}

describe('parseSshPublicKey', () => {
  const cases: { type: string; bits?: number; wire: string; algorithm: string }[] = [
    { type: 'rsa', bits: 2048, wire: 'ssh-rsa', algorithm: 'rsa' },
    { type: 'rsa', bits: 1024, wire: 'ssh-rsa', algorithm: 'rsa' },
    { type: 'ed25519', wire: 'ssh-ed25519', algorithm: 'ed25519' },
    { type: 'ecdsa', bits: 256, wire: 'ecdsa-sha2-nistp256', algorithm: 'ecdsa' },
    { type: 'ecdsa', bits: 384, wire: 'ecdsa-sha2-nistp384', algorithm: 'ecdsa' },
    { type: 'ecdsa', bits: 521, wire: 'ecdsa-sha2-nistp521', algorithm: 'ecdsa' },
  ];
  for (const keyCase of cases) {
    test(`${keyCase.wire} ${keyCase.bits ?? ''} matches ssh-keygen`, () => {
      const generated = generate(keyCase.type, keyCase.bits);
      const key = parsed(generated.line);
      assert.equal(key.type, keyCase.wire);
      assert.equal(key.algorithm, keyCase.algorithm);
      assert.equal(key.bits, generated.bits);
      assert.equal(key.fingerprint, generated.md5);
      assert.equal(key.fingerprintSha256, generated.sha256);
      assert.match(key.comment ?? '', /^user\d+@example\.com$/);
      assert.equal(key.normalized, generated.line);
    });
  }

  test('ignores line breaks pasted inside the key and surrounding blanks', () => {
    const generated = generate('ed25519');
    const [type, blob] = generated.line.split(' ');
    const key = parsed(`  ${type} ${blob?.slice(0, 20)}\n${blob?.slice(20)}  \n`);
    assert.equal(key.fingerprint, generated.md5);
    assert.equal(key.comment, null);
    assert.equal(key.normalized, `${type} ${blob}`);
  });

  test('rejects garbage, truncated blobs and mismatched type names', () => {
    const generated = generate('ed25519');
    const [, blob = ''] = generated.line.split(' ');
    assert.equal(parseSshPublicKey(''), null);
    assert.equal(parseSshPublicKey('not a key'), null);
    assert.equal(parseSshPublicKey('ssh-ed25519'), null);
    assert.equal(parseSshPublicKey('ssh-ed25519 !!!notbase64'), null);
    assert.equal(parseSshPublicKey(`ssh-rsa ${blob}`), null);
    const truncated = Buffer.from(blob, 'base64').subarray(0, 30).toString('base64');
    assert.equal(parseSshPublicKey(`ssh-ed25519 ${truncated}`), null);
    const extended = Buffer.concat([Buffer.from(blob, 'base64'), Buffer.from([0, 0, 0, 0])]).toString('base64');
    assert.equal(parseSshPublicKey(`ssh-ed25519 ${extended}`), null);
  });
});

describe('sshKeyRestrictionError', () => {
  const rsa1024 = parsed(generate('rsa', 1024).line);
  const ed25519 = parsed(generate('ed25519').line);

  test('accepts any size when restrictions are 0', () => {
    assert.equal(sshKeyRestrictionError(rsa1024, ANY_SIZE), null);
    assert.equal(sshKeyRestrictionError(ed25519, ANY_SIZE), null);
  });

  test('requires the minimum bit count', () => {
    assert.equal(
      sshKeyRestrictionError(rsa1024, { ...ANY_SIZE, rsa_key_restriction: 2048 }),
      'must be at least 2048 bits',
    );
    assert.equal(sshKeyRestrictionError(ed25519, { ...ANY_SIZE, ed25519_key_restriction: 256 }), null);
  });

  test('names the allowed types when a type is forbidden', () => {
    assert.equal(
      sshKeyRestrictionError(rsa1024, { ...ANY_SIZE, rsa_key_restriction: -1 }),
      'type is forbidden. Must be DSA, ECDSA, or ED25519',
    );
    assert.equal(
      sshKeyRestrictionError(ed25519, { ...ANY_SIZE, dsa_key_restriction: -1, ed25519_key_restriction: -1 }),
      'type is forbidden. Must be RSA or ECDSA',
    );
  });
});
