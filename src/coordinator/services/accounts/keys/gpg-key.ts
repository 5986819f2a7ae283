import { createHash } from 'node:crypto';

export interface ParsedGpgKey {
  /** Upper-case hex of the v4 fingerprint (SHA-1) of the primary key. */
  fingerprint: string;
  /** Upper-case hex of the last 8 bytes of the fingerprint. */
  primaryKeyId: string;
  /** The armored block with normalized line endings and no surrounding text. */
  armored: string;
  /** The version 4 public subkeys in the block, in order (GitLab's gpg_key_subkeys). */
  subkeys: Array<{ fingerprint: string; keyId: string }>;
}

const BEGIN = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const END = '-----END PGP PUBLIC KEY BLOCK-----';
const PUBLIC_KEY_TAG = 6;
const PUBLIC_SUBKEY_TAG = 14;

/** CRC-24 of RFC 4880 §6.1, used by the armor checksum line. */
function crc24(data: Buffer): number {
  let crc = 0xb704ce;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let bit = 0; bit < 8; bit += 1) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** Whether the text is framed as an armored public key block (GitLab's format check). */
export function looksLikeGpgPublicKey(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith(BEGIN) && trimmed.endsWith(END);
}

/** Decodes the armor: header lines, base64 body, optional `=XXXX` checksum. */
function dearmor(text: string): { data: Buffer; armored: string } | null {
  const lines = text.trim().split(/\r?\n/).map((line) => line.trim());
  if (lines[0] !== BEGIN || lines[lines.length - 1] !== END) return null;
  const inner = lines.slice(1, -1);
  const blank = inner.indexOf('');
  const hasHeaders = blank >= 0 && inner.slice(0, blank).every((line) => /^[A-Za-z-]+: /.test(line));
  const body = hasHeaders ? inner.slice(blank + 1) : inner.filter((line) => line !== '');
  let checksum: string | undefined;
  const last = body[body.length - 1];
  if (last?.startsWith('=')) {
    checksum = last.slice(1);
    body.pop();
  }
  const base64 = body.join('');
  if (base64 === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) return null;
  const data = Buffer.from(base64, 'base64');
  if (checksum !== undefined) {
    const expected = Buffer.from(checksum, 'base64');
    if (expected.length !== 3 || expected.readUIntBE(0, 3) !== crc24(data)) return null;
  }
  return { data, armored: lines.join('\n') };
}

/** The packet at `offset`: its tag, body and where the next one starts (old or new packet format, RFC 4880 §4.2). */
function packetAt(data: Buffer, start: number): { tag: number; body: Buffer; next: number } | null {
  const header = data[start];
  if (header === undefined || (header & 0x80) === 0) return null;
  let tag: number;
  let length: number;
  let offset: number;
  if (header & 0x40) {
    tag = header & 0x3f;
    const first = data[start + 1];
    if (first === undefined) return null;
    if (first < 192) [length, offset] = [first, 2];
    else if (first < 224) [length, offset] = [((first - 192) << 8) + (data[start + 2] ?? 0) + 192, 3];
    else if (first === 255 && data.length >= start + 6) [length, offset] = [data.readUInt32BE(start + 2), 6];
    else return null;
  } else {
    tag = (header >> 2) & 0x0f;
    const lengthType = header & 0x03;
    if (lengthType === 0 && data.length >= start + 2) [length, offset] = [data.readUInt8(start + 1), 2];
    else if (lengthType === 1 && data.length >= start + 3) [length, offset] = [data.readUInt16BE(start + 1), 3];
    else if (lengthType === 2 && data.length >= start + 5) [length, offset] = [data.readUInt32BE(start + 1), 5];
    else return null;
  }
  const bodyStart = start + offset;
  if (bodyStart + length > data.length) return null;
  return { tag, body: data.subarray(bodyStart, bodyStart + length), next: bodyStart + length };
}

/** The v4 fingerprint of a key packet's body (RFC 4880 §12.2), primary key or subkey alike. */
function v4Fingerprint(body: Buffer): string {
  const prefix = Buffer.from([0x99, (body.length >> 8) & 0xff, body.length & 0xff]);
  return createHash('sha1').update(prefix).update(body).digest('hex').toUpperCase();
}

/**
 * The version 4 public subkey packets after the primary key. Reading stops at the first packet
 * it cannot frame; whether a subkey is validly bound is gpg's to decide when it verifies.
 */
function subkeysOf(data: Buffer, start: number): ParsedGpgKey['subkeys'] {
  const subkeys: ParsedGpgKey['subkeys'] = [];
  for (let packet = packetAt(data, start); packet; packet = packetAt(data, packet.next)) {
    if (packet.tag !== PUBLIC_SUBKEY_TAG || packet.body[0] !== 4 || packet.body.length < 6) continue;
    const fingerprint = v4Fingerprint(packet.body);
    if (!subkeys.some((subkey) => subkey.fingerprint === fingerprint)) subkeys.push({ fingerprint, keyId: fingerprint.slice(-16) });
  }
  return subkeys;
}

/**
 * Parses an ASCII-armored OpenPGP public key block whose first packet is a version 4
 * public key; null when the armor, checksum or packet is malformed.
 */
export function parseGpgPublicKey(text: string): ParsedGpgKey | null {
  const decoded = dearmor(text);
  if (!decoded) return null;
  const packet = packetAt(decoded.data, 0);
  if (!packet || packet.tag !== PUBLIC_KEY_TAG || packet.body[0] !== 4 || packet.body.length < 6) return null;
  const fingerprint = v4Fingerprint(packet.body);
  return { fingerprint, primaryKeyId: fingerprint.slice(-16), armored: decoded.armored, subkeys: subkeysOf(decoded.data, packet.next) };
}
