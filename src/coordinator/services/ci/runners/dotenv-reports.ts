/**
 * `artifacts:reports:dotenv`: the report a runner uploads (gzip) read into variables, with
 * GitLab's rules and limits (`Ci::ParseDotenvArtifactService`, run when the report is uploaded,
 * before it is kept): a file of at least 5,120 bytes, a line that is not `KEY=VALUE`, more
 * than 20 variables or a key other than letters, digits and `_` refuse the upload (400, with
 * GitLab's message), so the runner's upload stage, and with it the job, fails.
 */
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
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
  return parseDotenv(await unpacked(file.stream));
}

/**
 * GitLab's parse: each line (a last one without its newline too) is `KEY=VALUE`, split at the
 * first `=`, both sides stripped; anything else, an empty line or a comment among them, is
 * "Invalid Format". A key given twice keeps its first place and its last value. The count is
 * checked before the keys, as GitLab validates the keys only when it saves them.
 */
export function parseDotenv(text: string): DotenvVariable[] {
  const variables = new Map<string, string>();
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = body.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const equals = line.indexOf('=');
    if (equals < 0) throw invalidReport('Invalid Format');
    variables.set(line.slice(0, equals).replace(RUBY_STRIP, ''), line.slice(equals + 1).replace(RUBY_STRIP, ''));
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

/** The gzip members' bytes as UTF-8 text (invalid bytes replaced), refused past DOTENV_LIMITS.unpacked. */
async function unpacked(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  const collect = new Writable({
    write(chunk: Buffer, _encoding, done) {
      total += chunk.length;
      if (total > DOTENV_LIMITS.unpacked) {
        done(invalidReport(`Dotenv Artifact Too Big. Maximum Allowable Size Unpacked: ${DOTENV_LIMITS.unpacked}`));
        return;
      }
      chunks.push(chunk);
      done();
    },
  });
  try {
    await pipeline(stream, createGunzip(), collect);
  } catch (error) {
    if (error instanceof GantryError) throw error;
    throw invalidReport('Unable to read gzip stream');
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

/** GitLab's answer to a report of DOTENV_LIMITS.size bytes or more. */
export function dotenvTooBig(): GantryError {
  return invalidReport(`Dotenv Artifact Too Big. Maximum Allowable Size: ${DOTENV_LIMITS.size}`);
}

function invalidReport(message: string): GantryError {
  return new GantryError('GANTRY_E_ARTIFACT_REPORT_INVALID', message);
}
