/**
 * Job-token calls (reference §4–§6): PUT /jobs/:id, PATCH /jobs/:id/trace, artifact upload
 * (one multipart part `file`, streamed chunked from a file, never buffered) and download.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Dependency } from '../../protocol/job-payload.ts';
import { DependencyDownloadError, type ArtifactUpload, type ArtifactUploadResult, type FailureReason } from '../job/session.ts';
import type { RunnerInfoBody } from '../version.ts';
import { discard, header, type HttpResponse, type Transport } from './transport.ts';

/** What an answer to PUT or PATCH means for the job (gitlab-runner's result kinds). */
export type RemoteResult = 'succeeded' | 'accepted' | 'trace-validation-failed' | 'range-mismatch' | 'abort' | 'cancel-requested' | 'not-found' | 'failed';

export interface RemoteAnswer {
  result: RemoteResult;
  status: number;
  /** From `X-GitLab-Trace-Update-Interval` (seconds), when valid. */
  updateInterval?: number;
  /** From a 202's or a 416's `Range: 0-N`. */
  remoteSize?: number;
  /** A Gantry coordinator held this keep-alive until the job's status changed (`X-Gantry-Job-Watch`). */
  watched?: boolean;
}

/** Gantry's held keep-alive: the coordinator answers once the job's status changes, or after these seconds. */
export const JOB_WATCH_HEADER = 'x-gantry-job-watch';

export interface UpdateJobBody {
  info: RunnerInfoBody;
  token: string;
  state: 'running' | 'success' | 'failed';
  failure_reason?: FailureReason;
  exit_code?: number;
  checksum?: string;
  output?: { checksum: string; bytesize: number };
}

const MAX_UPDATE_INTERVAL_SECONDS = 180;

function common(response: HttpResponse): Pick<RemoteAnswer, 'updateInterval' | 'remoteSize'> {
  const out: Pick<RemoteAnswer, 'updateInterval' | 'remoteSize'> = {};
  const interval = Number(header(response, 'x-gitlab-trace-update-interval'));
  if (Number.isFinite(interval) && interval > 0) out.updateInterval = Math.min(interval, MAX_UPDATE_INTERVAL_SECONDS);
  const range = /^\s*\d+-(\d+)\s*$/.exec(header(response, 'range') ?? '');
  if (range) out.remoteSize = Number(range[1]);
  return out;
}

function remoteState(response: HttpResponse): RemoteResult | null {
  const status = (header(response, 'job-status') ?? '').trim();
  if (status === 'canceled' || status === 'failed') return 'abort';
  if (status === 'canceling') return 'cancel-requested';
  return null;
}

/** `watchSeconds`: ask a Gantry coordinator to hold this keep-alive (GitLab ignores it and answers at once). */
export async function updateJob(transport: Transport, jobId: number, body: UpdateJobBody, options: { watchSeconds?: number; signal?: AbortSignal } = {}): Promise<RemoteAnswer> {
  const headers = options.watchSeconds === undefined ? undefined : { [JOB_WATCH_HEADER]: String(options.watchSeconds) };
  const response = await transport.json('PUT', `jobs/${jobId}`, body, { headers, signal: options.signal });
  const base = { status: response.status, ...common(response), ...(header(response, JOB_WATCH_HEADER) === undefined ? {} : { watched: true }) };
  const remote = remoteState(response);
  if (remote) return { result: remote, ...base };
  switch (response.status) {
    case 200:
      return { result: 'succeeded', ...base };
    case 202:
      return { result: 'accepted', ...base };
    case 412:
      return { result: 'trace-validation-failed', ...base };
    case 403:
    case 404:
      return { result: 'abort', ...base };
    default:
      return { result: 'failed', ...base };
  }
}

/** One PATCH of `bytes` starting at `offset`; `Content-Range` carries an inclusive end as v13.12 does. */
export async function patchTrace(transport: Transport, jobId: number, token: string, bytes: Buffer, offset: number): Promise<RemoteAnswer> {
  const response = await transport.send('PATCH', `jobs/${jobId}/trace`, {
    headers: {
      'content-type': 'text/plain',
      'content-range': `${offset}-${offset + bytes.length - 1}`,
      'job-token': token,
      'user-agent': transport.userAgent,
    },
    body: bytes,
  });
  const base = { status: response.status, ...common(response) };
  const remote = remoteState(response);
  if (remote) return { result: remote, ...base };
  switch (response.status) {
    case 202:
      return { result: 'succeeded', ...base };
    case 416:
      return { result: 'range-mismatch', ...base };
    case 403:
      return { result: 'abort', ...base };
    case 404:
      return { result: 'not-found', ...base };
    default:
      return { result: 'failed', ...base };
  }
}

function multipartBody(file: string, fileName: string, boundary: string): Readable {
  const safeName = fileName.replace(/["\r\n\\]/g, '_');
  return Readable.from(
    (async function* () {
      yield Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${safeName}"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      yield* createReadStream(file);
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    })(),
  );
}

const STATUS_TEXT: Record<number, string> = { 201: 'Created', 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Request Entity Too Large', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };

export interface UploadRetryOptions {
  /** Delay between attempts (gitlab-runner: 1 to 5 s). */
  retryDelayMs?: number;
}

/**
 * POST /jobs/:id/artifacts. 201 is success; 403 and 413 are final; 503 is retried up to 6
 * tries, anything else up to 3 (reference §6.1).
 */
export async function uploadArtifact(transport: Transport, jobId: number, token: string, upload: ArtifactUpload, options: UploadRetryOptions = {}): Promise<ArtifactUploadResult> {
  let last: ArtifactUploadResult = { ok: false, status: -1, statusText: 'not sent' };
  for (let attempt = 1; ; attempt++) {
    const boundary = `gantry-${randomBytes(12).toString('hex')}`;
    try {
      const response = await transport.raw('POST', `jobs/${jobId}/artifacts`, {
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'job-token': token, 'user-agent': transport.userAgent },
        body: multipartBody(upload.file, upload.fileName, boundary),
        query: { artifact_format: upload.artifactFormat, artifact_type: upload.artifactType, expire_in: upload.expireIn ?? undefined },
      });
      await discard(response.body);
      await transport.afterStatus('POST', `jobs/${jobId}/artifacts`, response.statusCode);
      last = { ok: response.statusCode === 201, status: response.statusCode, statusText: `${response.statusCode} ${STATUS_TEXT[response.statusCode] ?? ''}`.trim() };
    } catch (error) {
      last = { ok: false, status: -1, statusText: error instanceof Error ? error.message : String(error) };
    }
    if (last.ok || last.status === 403 || last.status === 413) return last;
    const tries = last.status === 503 ? 6 : 3;
    if (attempt >= tries) return last;
    await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 1000 + Math.random() * 4000));
  }
}

/**
 * GET /jobs/:id/artifacts with the dependency's own token into `destination`
 * (`direct_download=true` on the first try; redirects followed). 403/404 are final.
 */
export async function downloadArtifacts(transport: Transport, dependency: Dependency, destination: string, options: UploadRetryOptions = {}): Promise<void> {
  let lastError = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const response = await transport.raw('GET', `jobs/${dependency.id}/artifacts`, {
        headers: { 'job-token': dependency.token },
        query: attempt === 1 ? { direct_download: 'true' } : undefined,
      });
      if (response.statusCode === 200) {
        await pipeline(response.body, createWriteStream(destination));
        await transport.afterStatus('GET', `jobs/${dependency.id}/artifacts`, 200);
        return;
      }
      await discard(response.body);
      await transport.afterStatus('GET', `jobs/${dependency.id}/artifacts`, response.statusCode);
      lastError = `${response.statusCode} ${STATUS_TEXT[response.statusCode] ?? ''}`.trim();
      if (response.statusCode === 403 || response.statusCode === 404) throw new DependencyDownloadError(lastError, true);
    } catch (error) {
      if (error instanceof DependencyDownloadError) throw error;
      lastError = error instanceof Error ? error.message : String(error);
      await rm(destination, { force: true });
    }
    if (attempt < 3) await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 1000));
  }
  throw new DependencyDownloadError(lastError, false);
}
