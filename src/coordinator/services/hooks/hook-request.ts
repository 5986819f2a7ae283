import { randomUUID } from 'node:crypto';
import { GITLAB_COMPATIBLE_VERSION } from '../../../shared/version.ts';
import type { HookRecord, NewHookLog } from '../../../storage/types-hooks.ts';
import { OutboundFailure, sendOutbound, type OutboundRequest, type OutboundResponse } from '../outbound/outbound-http.ts';

/** Characters of a payload and of an answer kept in a hook's log. */
export const LOGGED_REQUEST_CHARS = 64 * 1024;
export const LOGGED_RESPONSE_CHARS = 8 * 1024;

export interface HookAttempt {
  /** A 2xx answer. */
  ok: boolean;
  /** No answer, a time-out, a 5xx or 429: another attempt may fare better. */
  retryable: boolean;
  log: Omit<NewHookLog, 'created_at'>;
}

export interface HookRequestInput {
  hook: HookRecord;
  trigger: string;
  eventHeader: string;
  eventUuid: string;
  payload: Record<string, unknown>;
  instanceUrl: string;
  allowLocal: boolean;
  timeoutMs: number;
  send?: (request: OutboundRequest) => Promise<OutboundResponse>;
  clock?: () => number;
}

/** The URL as a hook's log keeps it: a user and a password in it masked (GitLab's SafeUrl). */
export function loggedHookUrl(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  if (parsed.username === '' && parsed.password === '') return url;
  if (parsed.username !== '') parsed.username = '*****';
  if (parsed.password !== '') parsed.password = '*****';
  return parsed.href;
}

/**
 * One POST of a payload to a hook, with GitLab's headers, through the SSRF-guarded outbound
 * client (the URL only, no redirects, local addresses refused unless allowed, after DNS).
 * Never throws: every outcome, failures included, comes back as a log entry.
 */
export async function sendHookRequest(input: HookRequestInput): Promise<HookAttempt> {
  const { hook } = input;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': `GitLab/${GITLAB_COMPATIBLE_VERSION}`,
    'x-gitlab-event': input.eventHeader,
    'x-gitlab-event-uuid': input.eventUuid,
    'x-gitlab-webhook-uuid': randomUUID(),
    'x-gitlab-instance': input.instanceUrl,
  };
  if (hook.token !== null) headers['x-gitlab-token'] = hook.token;
  const body = serialised(input.payload);
  const clock = input.clock ?? Date.now;
  const started = clock();
  const loggedHeaders = { ...headers, ...(hook.token !== null ? { 'x-gitlab-token': '[REDACTED]' } : {}) };
  const base = { hook_id: hook.id, trigger: input.trigger, url: loggedHookUrl(hook.url), request_headers: loggedHeaders, request_data: body.slice(0, LOGGED_REQUEST_CHARS) };
  try {
    const response = await (input.send ?? sendOutbound)({
      method: 'POST', url: hook.url, headers, body, allowLocal: input.allowLocal, timeoutMs: input.timeoutMs, verifyTls: hook.enable_ssl_verification,
    });
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      retryable: response.status >= 500 || response.status === 429,
      log: {
        ...base,
        response_status: String(response.status),
        response_headers: flatHeaders(response.headers),
        response_body: response.body.slice(0, LOGGED_RESPONSE_CHARS),
        execution_duration: (clock() - started) / 1000,
        internal_error_message: null,
      },
    };
  } catch (error) {
    const message = error instanceof OutboundFailure ? error.message : 'the request failed';
    const refused = error instanceof OutboundFailure && (error.kind === 'refused-address' || error.kind === 'invalid-url');
    return {
      ok: false,
      retryable: !refused,
      log: { ...base, response_status: 'internal error', response_headers: {}, response_body: '', execution_duration: (clock() - started) / 1000, internal_error_message: message },
    };
  }
}

/** Payloads as JSON, once per payload object: the hooks of one event share one (hook-payloads.ts), which is never changed. */
const serialisedPayloads = new WeakMap<Record<string, unknown>, string>();

function serialised(payload: Record<string, unknown>): string {
  let body = serialisedPayloads.get(payload);
  if (body === undefined) {
    body = JSON.stringify(payload);
    serialisedPayloads.set(payload, body);
  }
  return body;
}

function flatHeaders(headers: OutboundResponse['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  return flat;
}
