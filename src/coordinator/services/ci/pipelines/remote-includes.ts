import type { RemoteFileResult } from '../../../../ci/model.ts';
import type { SettingsService } from '../../instance/settings.ts';
import { OutboundFailure, sendOutbound, type OutboundRequest, type OutboundResponse } from '../../outbound/outbound-http.ts';

/** One remote file: GitLab's HTTP client's read timeout. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Every remote file of one configuration together (GitLab gives its whole configuration 30 s). */
const COMPILE_BUDGET_MS = 30_000;
/** Kept of an answer: more than any configuration may be (the compiler's own limit, 1 MiB by default, decides). */
const MAX_BYTES = 4 * 1024 * 1024;

export interface RemoteIncludesDeps {
  settings: Pick<SettingsService, 'values'>;
  /** The outbound HTTP client (tests may answer names with their own resolver through it). */
  send?: (request: OutboundRequest) => Promise<OutboundResponse>;
}

/** Redirects followed for one file (GitLab's HTTP client, HTTParty's default limit); one more is an HTTP error. */
const MAX_REDIRECTS = 5;

/**
 * The files `include:remote` names, fetched with the one outbound client, following up to 5
 * redirects as GitLab's client does (each new address checked as the first: local addresses
 * refused unless the instance allows local requests,
 * `allow_local_requests_from_web_hooks_and_services`), each file within 10 s and all of one
 * configuration within 30 s. An answer of 400 or more is an error; any other is the file.
 */
export class RemoteIncludes {
  constructor(private readonly deps: RemoteIncludesDeps) {}

  /** The reader of one compile: its remote files share one time budget. */
  forCompile(): (url: string) => Promise<RemoteFileResult> {
    const deadline = Date.now() + COMPILE_BUDGET_MS;
    return async (url) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return { status: 'timeout' };
      const allowLocal = (await this.deps.settings.values()).allow_local_requests_from_web_hooks_and_services === true;
      const fileDeadline = Date.now() + Math.min(REQUEST_TIMEOUT_MS, remaining);
      try {
        let location = url;
        for (let redirects = 0; ; redirects += 1) {
          const timeoutMs = fileDeadline - Date.now();
          if (timeoutMs <= 0) return { status: 'timeout' };
          const answer = await (this.deps.send ?? sendOutbound)({ method: 'GET', url: location, allowLocal, timeoutMs, maxResponseBytes: MAX_BYTES });
          const next = redirectTarget(location, answer);
          if (next === null) {
            if (answer.status >= 400) return { status: 'http-code', code: answer.status };
            if (answer.truncated) return { status: 'too-big' };
            return { status: 'found', content: answer.body };
          }
          if (redirects === MAX_REDIRECTS || next === undefined) return { status: 'http-error' };
          location = next;
        }
      } catch (error) {
        if (!(error instanceof OutboundFailure)) throw error;
        switch (error.kind) {
          case 'timeout':
            return { status: 'timeout' };
          case 'refused-address':
            return { status: 'refused', reason: 'URL is blocked: Requests to the local network are not allowed' };
          case 'invalid-url':
            return { status: 'refused', reason: `URL is blocked: ${error.message}` };
          case 'network':
            return { status: 'socket-error' };
        }
      }
    };
  }
}

/**
 * Where a redirect (301, 302, 303, 307, 308 with a Location) points, resolved against the URL
 * asked; null when the answer is not a redirect; undefined when it points nowhere fetchable
 * (not http or https: HTTParty's unsupported scheme, an HTTP error).
 */
function redirectTarget(from: string, answer: OutboundResponse): string | null | undefined {
  if (![301, 302, 303, 307, 308].includes(answer.status)) return null;
  const location = answer.headers.location;
  if (typeof location !== 'string' || location === '') return null;
  try {
    const target = new URL(location, from);
    return target.protocol === 'http:' || target.protocol === 'https:' ? target.toString() : undefined;
  } catch {
    return undefined;
  }
}
