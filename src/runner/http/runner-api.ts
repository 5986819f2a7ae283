/**
 * Runner-token calls (reference §2, §3): register, verify, unregister, request a job.
 * Results are data (never thrown for an HTTP status); transport failures reject.
 */
import type { JobPayload } from '../../protocol/job-payload.ts';
import type { RunnerInfoBody } from '../version.ts';
import { decodeJobPayload, PayloadError } from './payload.ts';
import { isJson, type Transport } from './transport.ts';

export interface RegisterParameters {
  registrationToken: string;
  description?: string;
  tagList?: string[];
  runUntagged: boolean;
  locked: boolean;
  accessLevel?: 'not_protected' | 'ref_protected';
  maximumTimeout?: number;
  /** false registers the runner paused. Sent as `active`, which every GitLab since 10.7 takes (16+ also `paused`, but refuses both at once). */
  active: boolean;
  maintenanceNote?: string;
  info: RunnerInfoBody;
}

export type RegisterResult =
  | { kind: 'registered'; id: number | null; token: string; tokenExpiresAt: string | null }
  | { kind: 'forbidden' }
  | { kind: 'failed'; status: number; message: string };

export async function registerRunner(transport: Transport, parameters: RegisterParameters): Promise<RegisterResult> {
  const body: Record<string, unknown> = { token: parameters.registrationToken };
  if (parameters.description) body.description = parameters.description;
  if (parameters.maintenanceNote) body.maintenance_note = parameters.maintenanceNote;
  if (parameters.tagList && parameters.tagList.length > 0) body.tag_list = parameters.tagList.join(',');
  body.run_untagged = parameters.runUntagged;
  body.locked = parameters.locked;
  if (parameters.accessLevel) body.access_level = parameters.accessLevel;
  if (parameters.maximumTimeout) body.maximum_timeout = parameters.maximumTimeout;
  body.active = parameters.active;
  body.info = parameters.info;
  const response = await transport.json('POST', 'runners', body, { expectBody: true });
  if (response.status === 403) return { kind: 'forbidden' };
  if (response.status !== 201) return { kind: 'failed', status: response.status, message: errorMessage(response.text) };
  if (!isJson(response)) return { kind: 'failed', status: -1, message: 'the answer is not application/json' };
  try {
    const parsed = JSON.parse(response.text) as { id?: unknown; token?: unknown; token_expires_at?: unknown };
    if (typeof parsed.token !== 'string' || parsed.token === '') return { kind: 'failed', status: -1, message: 'the answer carries no token' };
    return {
      kind: 'registered',
      id: typeof parsed.id === 'number' ? parsed.id : null,
      token: parsed.token,
      tokenExpiresAt: typeof parsed.token_expires_at === 'string' ? parsed.token_expires_at : null,
    };
  } catch {
    return { kind: 'failed', status: -1, message: 'the answer is not valid JSON' };
  }
}

export interface VerifyResult {
  kind: 'alive' | 'removed' | 'unknown';
  status: number;
  /** What GitLab 15.10+ (and Gantry) answer: the runner's id and its token's expiry (older ones answer a bare `200`). */
  id?: number;
  tokenExpiresAt?: string | null;
}

/**
 * 200 → alive, 403 → removed; anything else → unknown (gitlab-runner treats it as alive).
 * With `systemId` the coordinator records this host as one of the runner's managers.
 */
export async function verifyRunner(transport: Transport, token: string, systemId?: string): Promise<VerifyResult> {
  const body: Record<string, unknown> = { token };
  if (systemId) body.system_id = systemId;
  const response = await transport.json('POST', 'runners/verify', body, { expectBody: true });
  if (response.status === 403) return { kind: 'removed', status: 403 };
  if (response.status !== 200) return { kind: 'unknown', status: response.status };
  const result: VerifyResult = { kind: 'alive', status: 200 };
  if (!isJson(response)) return result;
  try {
    const parsed = JSON.parse(response.text) as { id?: unknown; token_expires_at?: unknown };
    if (typeof parsed.id === 'number') result.id = parsed.id;
    if (typeof parsed.token_expires_at === 'string' || parsed.token_expires_at === null) result.tokenExpiresAt = parsed.token_expires_at;
  } catch {
    // the legacy answer `200`: alive, nothing more to learn
  }
  return result;
}

/** DELETE /runners with the token in a JSON body; only 204 is success. */
export async function unregisterRunner(transport: Transport, token: string): Promise<{ ok: boolean; status: number }> {
  const response = await transport.json('DELETE', 'runners', { token });
  return { ok: response.status === 204, status: response.status };
}

export type JobRequestResult =
  | { kind: 'job'; payload: JobPayload }
  | { kind: 'none' }
  | { kind: 'forbidden' }
  /** 409 or an unusable answer: healthy, no job, try again. */
  | { kind: 'failed'; status: number; message: string }
  /** A job was handed out but its payload cannot be used: it must be failed on the coordinator. */
  | { kind: 'invalid'; id: number; token: string; message: string };

export async function requestJob(transport: Transport, token: string, info: RunnerInfoBody, signal?: AbortSignal, systemId?: string): Promise<JobRequestResult> {
  const body: Record<string, unknown> = { info, token };
  if (systemId) body.system_id = systemId;
  if (transport.lastUpdate !== undefined) body.last_update = transport.lastUpdate;
  const response = await transport.json('POST', 'jobs/request', body, { expectBody: true, signal });
  if (response.status === 204) return { kind: 'none' };
  if (response.status === 403) return { kind: 'forbidden' };
  if (response.status !== 201) return { kind: 'failed', status: response.status, message: errorMessage(response.text) };
  if (!isJson(response)) return { kind: 'failed', status: -1, message: 'the job answer is not application/json' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.text);
  } catch {
    return { kind: 'failed', status: -1, message: 'the job answer is not valid JSON' };
  }
  try {
    return { kind: 'job', payload: decodeJobPayload(parsed) };
  } catch (error) {
    if (error instanceof PayloadError && error.id !== null && error.token !== null) return { kind: 'invalid', id: error.id, token: error.token, message: error.message };
    return { kind: 'failed', status: -1, message: error instanceof Error ? error.message : String(error) };
  }
}

function errorMessage(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown; error?: unknown };
    const message = parsed.message ?? parsed.error;
    if (typeof message === 'string') return message;
    if (message !== undefined) return JSON.stringify(message);
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}
