/**
 * What a git index (`.git/index`, versions 2 to 4, SHA-1) lists, read without a git process:
 * the paths it tracks and whether a checkout over it would keep a job's change in place. Git's
 * format: a `DIRC` header, fixed-size entry fields, the path (NUL-terminated; padded to 8 bytes
 * before version 4, prefix-compressed from version 4), extensions, then the SHA-1 of all before.
 */
import { createHash } from 'node:crypto';
import { utf8Text } from '../../shared/utf8.ts';

export interface IndexListing {
  /** Tracked paths, `/`-separated. */
  files: Set<string>;
  /** Every directory above a tracked path. */
  directories: Set<string>;
}

const HASH_BYTES = 20;
const FIXED_BYTES = 62;
const REGULAR = 0o100644;
const EXECUTABLE = 0o100755;
const SYMLINK = 0o120000;
const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const STAGE = 0x3000;
const NAME_LENGTH = 0xfff;
const SKIP_WORKTREE = 0x4000;
const INTENT_TO_ADD = 0x2000;

/**
 * The listing, or null for an index a checkout could not be trusted over: one it cannot read
 * (another version or hash, damaged), one with entries a checkout leaves alone (assume-unchanged,
 * skip-worktree, intent-to-add, conflicts, submodules, a sparse index's directories), or a path
 * that is not UTF-8.
 */
export function readIndexListing(data: Buffer): IndexListing | null {
  if (data.length < 12 + HASH_BYTES || data.toString('latin1', 0, 4) !== 'DIRC') return null;
  const body = data.subarray(0, data.length - HASH_BYTES);
  if (!createHash('sha1').update(body).digest().equals(data.subarray(data.length - HASH_BYTES))) return null;
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = data.readUInt32BE(8);
  const files = new Set<string>();
  const directories = new Set<string>();
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let entry = 0; entry < count; entry += 1) {
    if (offset + FIXED_BYTES > body.length) return null;
    const mode = data.readUInt32BE(offset + 24);
    const flags = data.readUInt16BE(offset + 60);
    let cursor = offset + FIXED_BYTES;
    let extended = 0;
    if (flags & EXTENDED) {
      if (version < 3 || cursor + 2 > body.length) return null;
      extended = data.readUInt16BE(cursor);
      cursor += 2;
    }
    if (flags & (ASSUME_VALID | STAGE) || extended & (SKIP_WORKTREE | INTENT_TO_ADD)) return null;
    if (mode !== REGULAR && mode !== EXECUTABLE && mode !== SYMLINK) return null;
    let name: Buffer;
    if (version === 4) {
      const prefix = readVarint(body, cursor);
      if (prefix === null || prefix.value > previous.length) return null;
      const end = body.indexOf(0, prefix.next);
      if (end < 0) return null;
      name = Buffer.concat([previous.subarray(0, previous.length - prefix.value), body.subarray(prefix.next, end)]);
      offset = end + 1;
    } else {
      const end = body.indexOf(0, cursor);
      if (end < 0) return null;
      name = body.subarray(cursor, end);
      // The entry, its NULs included, fills a multiple of 8 bytes.
      offset += (cursor - offset + name.length + 8) & ~7;
    }
    if ((flags & NAME_LENGTH) !== NAME_LENGTH && (flags & NAME_LENGTH) !== name.length) return null;
    previous = name;
    const text = utf8Text(name);
    if (text === null) return null;
    files.add(text);
    for (let slash = text.lastIndexOf('/'); slash > 0; slash = text.lastIndexOf('/', slash - 1)) {
      const directory = text.slice(0, slash);
      if (directories.has(directory)) break; // and so are those above it
      directories.add(directory);
    }
  }
  return offset <= body.length ? { files, directories } : null;
}

/** Git's offset varint (`decode_varint`): 7 bits a byte, each continued byte adding one. */
function readVarint(data: Buffer, at: number): { value: number; next: number } | null {
  let cursor = at;
  if (cursor >= data.length) return null;
  let byte = data[cursor++]!;
  let value = byte & 0x7f;
  while (byte & 0x80) {
    if (cursor >= data.length || value > 0xffffff) return null;
    byte = data[cursor++]!;
    value = ((value + 1) << 7) | (byte & 0x7f);
  }
  return { value, next: cursor };
}
