import { createHash } from 'node:crypto';
import type { FieldLimits } from '../../field-limits.ts';

/** GitLab's Key validations, for user SSH keys and deploy keys alike: title 255, key 5,000. */
export const SSH_KEY_LIMITS = { title: 255, key: 5000 } as const satisfies FieldLimits;

export type SshKeyAlgorithm = 'rsa' | 'dsa' | 'ecdsa' | 'ed25519' | 'ecdsa_sk' | 'ed25519_sk';

export interface ParsedSshKey {
  /** The wire type name, e.g. 'ssh-rsa', 'ssh-ed25519', 'ecdsa-sha2-nistp256'. */
  type: string;
  algorithm: SshKeyAlgorithm;
  bits: number;
  /** MD5 of the key blob, colon-separated lower-case hex (GitLab's `fingerprint`). */
  fingerprint: string;
  /** 'SHA256:' + unpadded base64 of the SHA-256 of the key blob, as `ssh-keygen -l` prints it. */
  fingerprintSha256: string;
  comment: string | null;
  /** 'type base64 [comment]' on one line. */
  normalized: string;
}

/** The four application settings that restrict key types and sizes. */
export interface SshKeyRestrictions {
  rsa_key_restriction: number;
  dsa_key_restriction: number;
  ecdsa_key_restriction: number;
  ed25519_key_restriction: number;
}

const FORBIDDEN = -1;

const ECDSA_CURVE_BITS: Record<string, number> = { nistp256: 256, nistp384: 384, nistp521: 521 };

/** Reads SSH wire-format fields (RFC 4251 `string` and `mpint`) from a key blob. */
class WireReader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  bytes(): Buffer | null {
    if (this.offset + 4 > this.buffer.length) return null;
    const length = this.buffer.readUInt32BE(this.offset);
    const start = this.offset + 4;
    if (start + length > this.buffer.length) return null;
    this.offset = start + length;
    return this.buffer.subarray(start, start + length);
  }

  text(): string | null {
    const value = this.bytes();
    return value === null ? null : value.toString('latin1');
  }

  atEnd(): boolean {
    return this.offset === this.buffer.length;
  }
}

/** Bit length of an unsigned big-endian integer (an mpint may carry a leading zero byte). */
function bitLength(value: Buffer): number {
  let index = 0;
  while (index < value.length && value[index] === 0) index += 1;
  if (index === value.length) return 0;
  const leading = value[index] ?? 0;
  return (value.length - index - 1) * 8 + (32 - Math.clz32(leading));
}

interface KeyShape {
  algorithm: SshKeyAlgorithm;
  bits: number;
}

function readEcdsa(reader: WireReader, type: string, algorithm: 'ecdsa' | 'ecdsa_sk'): KeyShape | null {
  const curve = reader.text();
  const point = reader.bytes();
  if (curve === null || point === null || point.length === 0) return null;
  const bits = ECDSA_CURVE_BITS[curve];
  if (bits === undefined || !type.includes(curve)) return null;
  return { algorithm, bits };
}

/** Decodes the fields after the type name; null when the blob does not hold a key of that type. */
function readKeyShape(type: string, reader: WireReader): KeyShape | null {
  switch (type) {
    case 'ssh-rsa': {
      const exponent = reader.bytes();
      const modulus = reader.bytes();
      if (exponent === null || modulus === null) return null;
      return { algorithm: 'rsa', bits: bitLength(modulus) };
    }
    case 'ssh-dss': {
      const p = reader.bytes();
      const q = reader.bytes();
      const g = reader.bytes();
      const y = reader.bytes();
      if (p === null || q === null || g === null || y === null) return null;
      return { algorithm: 'dsa', bits: bitLength(p) };
    }
    case 'ecdsa-sha2-nistp256':
    case 'ecdsa-sha2-nistp384':
    case 'ecdsa-sha2-nistp521':
      return readEcdsa(reader, type, 'ecdsa');
    case 'sk-ecdsa-sha2-nistp256@openssh.com': {
      const shape = readEcdsa(reader, type, 'ecdsa_sk');
      return shape && reader.text() !== null ? shape : null;
    }
    case 'ssh-ed25519': {
      const point = reader.bytes();
      return point?.length === 32 ? { algorithm: 'ed25519', bits: 256 } : null;
    }
    case 'sk-ssh-ed25519@openssh.com': {
      const point = reader.bytes();
      const application = reader.text();
      return point?.length === 32 && application !== null ? { algorithm: 'ed25519_sk', bits: 256 } : null;
    }
    default:
      return null;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The SHA-256 fingerprint as stored and looked up: unpadded base64, without `SHA256:`. */
export function sha256Digest(key: Pick<ParsedSshKey, 'fingerprintSha256'>): string {
  return key.fingerprintSha256.replace(/^SHA256:/, '');
}

/**
 * Parses an OpenSSH public key line ('type base64 [comment]'). Line breaks inside the text are
 * ignored, as GitLab does for pasted keys. Returns null unless the base64 blob decodes to a
 * complete key whose embedded type name matches the declared one.
 */
export function parseSshPublicKey(text: string): ParsedSshKey | null {
  const parts = text.replace(/[\r\n]+/g, '').trim().split(/\s+/);
  const [type, encoded, ...commentWords] = parts;
  if (!type || !encoded || !BASE64.test(encoded) || encoded.length % 4 !== 0) return null;
  const blob = Buffer.from(encoded, 'base64');
  const reader = new WireReader(blob);
  if (reader.text() !== type) return null;
  const shape = readKeyShape(type, reader);
  if (!shape || !reader.atEnd()) return null;

  const md5 = createHash('md5').update(blob).digest('hex');
  const sha256 = createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
  const comment = commentWords.length > 0 ? commentWords.join(' ') : null;
  return {
    type,
    algorithm: shape.algorithm,
    bits: shape.bits,
    fingerprint: md5.match(/../g)?.join(':') ?? md5,
    fingerprintSha256: `SHA256:${sha256}`,
    comment,
    normalized: comment === null ? `${type} ${encoded}` : `${type} ${encoded} ${comment}`,
  };
}

const TECHNOLOGIES: { name: string; setting: keyof SshKeyRestrictions }[] = [
  { name: 'rsa', setting: 'rsa_key_restriction' },
  { name: 'dsa', setting: 'dsa_key_restriction' },
  { name: 'ecdsa', setting: 'ecdsa_key_restriction' },
  { name: 'ed25519', setting: 'ed25519_key_restriction' },
];

/** Security-key variants follow the restriction of their base algorithm. */
function restrictionSetting(algorithm: SshKeyAlgorithm): keyof SshKeyRestrictions {
  if (algorithm === 'ecdsa_sk') return 'ecdsa_key_restriction';
  if (algorithm === 'ed25519_sk') return 'ed25519_key_restriction';
  return `${algorithm}_key_restriction`;
}

/** "A", "A or B", "A, B, or C" (GitLab's to_exclusive_sentence). */
function exclusiveSentence(words: string[]): string {
  if (words.length <= 1) return words.join('');
  if (words.length === 2) return `${words[0]} or ${words[1]}`;
  return `${words.slice(0, -1).join(', ')}, or ${words[words.length - 1]}`;
}

/**
 * GitLab's key restriction check: the message for the `key` attribute when the application
 * settings forbid this key's type or require more bits, else null.
 */
export function sshKeyRestrictionError(key: ParsedSshKey, settings: SshKeyRestrictions): string | null {
  const restriction = Number(settings[restrictionSetting(key.algorithm)] ?? 0);
  if (restriction === FORBIDDEN) {
    const allowed = TECHNOLOGIES.filter((tech) => Number(settings[tech.setting] ?? 0) !== FORBIDDEN).map((tech) =>
      tech.name.toUpperCase(),
    );
    return `type is forbidden. Must be ${exclusiveSentence(allowed)}`;
  }
  if (key.bits < restriction) return `must be at least ${restriction} bits`;
  return null;
}
