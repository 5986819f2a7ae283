import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { GantryError } from '../shared/errors.ts';

/**
 * Secrets at rest (CI variable values, webhook URLs and tokens, integration properties): what
 * the stores write is `gantry:v1:<key id>:<base64url of IV, GCM tag and ciphertext>`,
 * AES-256-GCM under the coordinator's secret key with a random 96-bit IV per value. The key
 * id (the first 8 hex digits of the key's SHA-256) names which key of the ring sealed a value,
 * so a rotated ring opens old values and the start-up pass knows which to seal again. A value
 * without the prefix is a row written before encryption: it reads as it is.
 */
export const SEALED_PREFIX = 'gantry:v1:';
export const SECRET_KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface RingKey {
  readonly id: string;
  readonly key: Buffer;
}

export class SecretBox {
  private readonly ring: readonly RingKey[];

  /** `keys`: the key to seal with first, then older keys that may still open stored values. */
  constructor(keys: readonly Buffer[]) {
    if (keys.length === 0) throw new GantryError('GANTRY_E_SECRET_KEY_INVALID', 'no secret key given');
    const ring: RingKey[] = [];
    for (const key of keys) {
      if (key.length !== SECRET_KEY_BYTES) throw new GantryError('GANTRY_E_SECRET_KEY_INVALID', `a secret key must be ${SECRET_KEY_BYTES} bytes, not ${key.length}`);
      const id = keyIdOf(key);
      if (!ring.some((known) => known.id === id)) ring.push({ id, key: Buffer.from(key) });
    }
    this.ring = ring;
  }

  /** A box with a fresh random key: nothing it seals outlives the process (`runner exec`, stores built without a key). */
  static ephemeral(): SecretBox {
    return new SecretBox([randomBytes(SECRET_KEY_BYTES)]);
  }

  /** The id of the key new values are sealed with. */
  get currentKeyId(): string {
    return this.ring[0]!.id;
  }

  /** The ids of every key of the ring, the current one first. */
  get keyIds(): string[] {
    return this.ring.map((entry) => entry.id);
  }

  /** The prefix of a value sealed with the current key. */
  get currentPrefix(): string {
    return `${SEALED_PREFIX}${this.currentKeyId}:`;
  }

  seal(plaintext: string): string {
    const { id, key } = this.ring[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${SEALED_PREFIX}${id}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  sealNullable(plaintext: string | null): string | null {
    return plaintext === null ? null : this.seal(plaintext);
  }

  /** The plaintext of a stored value; a value without the prefix was stored in clear and is answered as it is. */
  open(stored: string): string {
    if (!stored.startsWith(SEALED_PREFIX)) return stored;
    const rest = stored.slice(SEALED_PREFIX.length);
    const separator = rest.indexOf(':');
    const id = rest.slice(0, separator);
    const entry = separator > 0 ? this.ring.find((candidate) => candidate.id === id) : undefined;
    if (!entry) {
      throw new GantryError('GANTRY_E_SECRET_UNREADABLE', `a stored secret was sealed with secret key ${id || '(none)'}, which is not among this coordinator's keys (${this.keyIds.join(', ')})`);
    }
    const sealed = Buffer.from(rest.slice(separator + 1), 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new GantryError('GANTRY_E_SECRET_UNREADABLE', `a stored secret sealed with secret key ${id} does not open (altered or cut short)`, {}, { cause: error });
    }
  }

  openNullable(stored: string | null): string | null {
    return stored === null ? null : this.open(stored);
  }

  /** The id of the key a stored value was sealed with; undefined for a value stored in clear. */
  static keyIdOfSealed(stored: string): string | undefined {
    if (!stored.startsWith(SEALED_PREFIX)) return undefined;
    const rest = stored.slice(SEALED_PREFIX.length);
    return rest.slice(0, Math.max(0, rest.indexOf(':')));
  }
}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** A key as configured: 64 hexadecimal digits or the base64 of 32 bytes (what `generateSecretKey` writes). */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed, trimmed.includes('-') || trimmed.includes('_') ? 'base64url' : 'base64');
    if (decoded.length === SECRET_KEY_BYTES) return decoded;
  }
  throw new GantryError('GANTRY_E_SECRET_KEY_INVALID', `a secret key must be 64 hexadecimal digits or the base64 of ${SECRET_KEY_BYTES} bytes (openssl rand -base64 32)`);
}

/** A new random key in the form `parseSecretKey` reads. */
export function generateSecretKey(): string {
  return randomBytes(SECRET_KEY_BYTES).toString('base64');
}
