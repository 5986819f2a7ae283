/**
 * `artifacts:reports:dotenv`: the report a runner uploads (gzip) read into variables, with
 * GitLab's rules and limits (`Ci::ParseDotenvArtifactService`, run when the report is uploaded,
 * before it is kept): a file of at least 5,120 bytes, a line that is not `KEY=VALUE`, more
 * than 20 variables or a key other than letters, digits and `_` refuse the upload (400, with
 * GitLab's message), so the runner's upload stage, and with it the job, fails.
 */
import type { Readable } from 'node:stream';
import { crc32, inflateRawSync } from 'node:zlib';
import { GantryError } from '../../../../shared/errors.ts';
import type { ArtifactStore } from '../../../../storage/types-blobs.ts';

/** GitLab's defaults: the `dotenv_size` and `dotenv_variables` plan limits of a new instance. */
export const DOTENV_LIMITS = {
  /** Bytes of the uploaded (compressed) file; it must be smaller. */
  size: 5120,
  variables: 20,
  /**
   * Bytes once unpacked (Gantry's own bound: GitLab unpacks without one, and 5 KiB of gzip
   * can unpack to megabytes that every dependent job's payload would carry).
   */
  unpacked: 64 * 1024,
} as const;

export interface DotenvVariable {
  key: string;
  value: string;
}

const KEY = /^[a-zA-Z0-9_]+$/;
const KEY_MAX_LENGTH = 255;
// Ruby's String#strip: ASCII whitespace and NUL.
const RUBY_STRIP = /^[\t\n\v\f\r \0]+|[\t\n\v\f\r \0]+$/g;

/** The report's variables, or a GantryError (GANTRY_E_ARTIFACT_REPORT_INVALID) saying why GitLab would refuse it. */
export async function readDotenvReport(files: Pick<ArtifactStore, 'read'>, path: string, size: number): Promise<DotenvVariable[]> {
  if (size >= DOTENV_LIMITS.size) throw dotenvTooBig();
  const file = await files.read(path);
  if (!file) throw new Error(`dotenv report ${path} is missing from the artifact store`);
  return parseDotenv(gzipMembers(await boundedBytes(file.stream)));
}

/**
 * GitLab's parse of the report's files (the runner uploads one gzip member per file; GitLab
 * reads them one by one, `GzipStream#each_blob`): each line of each file (a last one without
 * its newline too) is `KEY=VALUE`, split at the first `=`, both sides stripped; anything else,
 * an empty line or a comment among them, is "Invalid Format". A file's leading byte-order mark
 * is dropped. A key given twice keeps its first place and its last value. The count is checked
 * before the keys, as GitLab validates the keys only when it saves them.
 */
export function parseDotenv(files: readonly string[]): DotenvVariable[] {
  const variables = new Map<string, string>();
  for (const file of files) {
    const body = file.startsWith('\uFEFF') ? file.slice(1) : file;
    const lines = body.split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (const line of lines) {
      const equals = line.indexOf('=');
      if (equals < 0) throw invalidReport('Invalid Format');
      variables.set(line.slice(0, equals).replace(RUBY_STRIP, ''), line.slice(equals + 1).replace(RUBY_STRIP, ''));
    }
  }
  if (variables.size > DOTENV_LIMITS.variables) throw invalidReport(`Dotenv files cannot have more than ${DOTENV_LIMITS.variables} variables`);
  for (const key of variables.keys()) {
    const problems = keyProblems(key);
    if (problems.length > 0) throw invalidReport(`Validation failed: ${problems.join(', ')}`);
  }
  return [...variables].map(([key, value]) => ({ key, value }));
}

/** Ci::JobVariable's key validations, with Rails' messages. */
function keyProblems(key: string): string[] {
  const problems: string[] = [];
  if (key === '') problems.push("Key can't be blank");
  if (key.length > KEY_MAX_LENGTH) problems.push(`Key is too long (maximum is ${KEY_MAX_LENGTH} characters)`);
  if (!KEY.test(key)) problems.push("Key can contain only letters, digits and '_'.");
  return problems;
}

/** The upload's bytes (its size was checked against DOTENV_LIMITS.size; the read stops there all the same, ending the stream). */
async function boundedBytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    total += bytes.length;
    if (total >= DOTENV_LIMITS.size) throw dotenvTooBig();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

interface InflatedWithInfo {
  buffer: Buffer;
  engine: { bytesWritten: number };
}

const GZIP_FLAGS = { headerCrc: 2, extra: 4, name: 8, comment: 16 } as const;

/**
 * Each gzip member's bytes as UTF-8 text (invalid bytes replaced), as Ruby's GzipReader reads
 * them one after the other until the end (an empty upload has none); refused past
 * DOTENV_LIMITS.unpacked in all, or when a member is not whole gzip (its checksum included).
 */
function gzipMembers(bytes: Buffer): string[] {
  const texts: string[] = [];
  let offset = 0;
  let unpackedTotal = 0;
  while (offset < bytes.length) {
    const dataStart = memberDataStart(bytes, offset);
    let inflated: InflatedWithInfo;
    try {
      // With `info`, Node answers the engine too (its typings do not say so): bytesWritten is the deflate data's length.
      inflated = inflateRawSync(bytes.subarray(dataStart), { info: true, maxOutputLength: DOTENV_LIMITS.unpacked }) as unknown as InflatedWithInfo;
    } catch (error) {
      throw (error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE' ? unpackedTooBig() : unreadable();
    }
    const trailer = dataStart + inflated.engine.bytesWritten;
    if (trailer + 8 > bytes.length) throw unreadable();
    if (bytes.readUInt32LE(trailer) !== crc32(inflated.buffer) || bytes.readUInt32LE(trailer + 4) !== inflated.buffer.length % 2 ** 32) throw unreadable();
    unpackedTotal += inflated.buffer.length;
    if (unpackedTotal > DOTENV_LIMITS.unpacked) throw unpackedTooBig();
    texts.push(new TextDecoder('utf-8').decode(inflated.buffer));
    offset = trailer + 8;
  }
  return texts;
}

/** Where a member's deflate data starts, past its header (RFC 1952: magic, method 8, flags and their optional fields). */
function memberDataStart(bytes: Buffer, offset: number): number {
  if (offset + 10 > bytes.length || bytes[offset] !== 0x1f || bytes[offset + 1] !== 0x8b || bytes[offset + 2] !== 8) throw unreadable();
  const flags = bytes[offset + 3] ?? 0;
  let position = offset + 10;
  if (flags & GZIP_FLAGS.extra) {
    if (position + 2 > bytes.length) throw unreadable();
    position += 2 + bytes.readUInt16LE(position);
  }
  for (const flag of [GZIP_FLAGS.name, GZIP_FLAGS.comment]) {
    if (!(flags & flag)) continue;
    const end = bytes.indexOf(0, position);
    if (end < 0) throw unreadable();
    position = end + 1;
  }
  if (flags & GZIP_FLAGS.headerCrc) position += 2;
  if (position > bytes.length) throw unreadable();
  return position;
}

function unreadable(): GantryError {
  return invalidReport('Unable to read gzip stream');
}

function unpackedTooBig(): GantryError {
  return invalidReport(`Dotenv Artifact Too Big. Maximum Allowable Size Unpacked: ${DOTENV_LIMITS.unpacked}`);
}

/** GitLab's answer to a report of DOTENV_LIMITS.size bytes or more. */
export function dotenvTooBig(): GantryError {
  return invalidReport(`Dotenv Artifact Too Big. Maximum Allowable Size: ${DOTENV_LIMITS.size}`);
}

function invalidReport(message: string): GantryError {
  return new GantryError('GANTRY_E_ARTIFACT_REPORT_INVALID', message);
}
