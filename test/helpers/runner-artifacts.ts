/**
 * The runner's side of artifacts for tests: zips (with zip-slip members yazl refuses to write),
 * the multipart upload gitlab-runner's artifacts-uploader sends (one part `file`, chunked, no
 * Content-Length), and a running job with a job token.
 */
import { Readable } from 'node:stream';
import { request } from 'undici';
import yazl from 'yazl';
import type { Coordinator } from '../../src/coordinator/app.ts';
import { jobTokenDigest, newJobToken } from '../../src/coordinator/services/ci/runners/job-tokens.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { moveJob } from './ci-pipelines.ts';

export interface ZipMemberSpec {
  content: string;
  /** Unix mode (0o120777 makes a symlink whose target is `content`). */
  mode?: number;
}

/**
 * A zip of `members`; `renames` rewrite member names in place afterwards (same byte length),
 * which is how names like `../evil.txt` or `/abs.txt` get in.
 */
export async function zipBytes(members: Record<string, string | ZipMemberSpec>, renames: Array<[string, string]> = []): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, spec] of Object.entries(members)) {
    const { content, mode } = typeof spec === 'string' ? { content: spec, mode: undefined } : spec;
    zip.addBuffer(Buffer.from(content), name, mode === undefined ? {} : { mode });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  for (const [from, to] of renames) {
    if (Buffer.byteLength(from) !== Buffer.byteLength(to)) throw new Error(`rename ${from} → ${to}: lengths differ`);
    for (let index = bytes.indexOf(from); index >= 0; index = bytes.indexOf(from, index + 1)) bytes.write(to, index);
  }
  return bytes;
}

/** Moves the job to running, as a runner taking it would, and gives it a fresh job token (only its digest is stored). */
export async function runningJobToken(coordinator: Coordinator, job: Pick<JobRecord, 'id' | 'pipeline_id'>): Promise<string> {
  await moveJob(coordinator, job, 'running');
  const token = newJobToken();
  await coordinator.context.stores.jobs.setTokenDigest(job.id, jobTokenDigest(token));
  return token;
}

export const BOUNDARY = '------------------------gantryArtifactBoundary';

/** The multipart body of artifacts-uploader: one part `file`, streamed from `content`. */
export async function* uploadBody(fileName: string, content: AsyncIterable<Buffer> | Buffer, fieldName = 'file'): AsyncGenerator<Buffer> {
  yield Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${fieldName}"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  if (Buffer.isBuffer(content)) yield content;
  else for await (const chunk of content) yield chunk;
  yield Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
}

export interface RunnerAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  text: string;
}

/** A request over real HTTP to `<base>/api/v4<path>`, the body (if any) sent chunked as the runner does. */
export async function runnerRequest(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  options: { token?: string; body?: AsyncIterable<Buffer>; contentType?: string } = {},
): Promise<RunnerAnswer> {
  const headers: Record<string, string> = { 'user-agent': 'gitlab-runner 13.12.0 (13-12-stable; go1.13.8; linux/amd64)' };
  if (options.token !== undefined) headers['job-token'] = options.token;
  if (options.body) headers['content-type'] = options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`;
  const answer = await request(`${base}/api/v4${path}`, {
    method,
    headers,
    body: options.body ? Readable.from(options.body) : undefined,
  });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  return { status: answer.statusCode, headers: answer.headers, bytes, text: bytes.toString() };
}
