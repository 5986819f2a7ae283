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

/**
 * The files `include:remote` names, fetched with the one outbound client: exactly the URL
 * (no redirect followed: a 3xx is an answer without the file), local addresses refused unless
 * the instance allows local requests (`allow_local_requests_from_web_hooks_and_services`, as
 * GitLab's HTTP client checks them), each within 10 s and all of one configuration within 30 s.
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
      try {
        const answer = await (this.deps.send ?? sendOutbound)({ method: 'GET', url, allowLocal, timeoutMs: Math.min(REQUEST_TIMEOUT_MS, remaining), maxResponseBytes: MAX_BYTES });
        if (answer.status < 200 || answer.status >= 300) return { status: 'http-code', code: answer.status };
        if (answer.truncated) return { status: 'too-big' };
        return { status: 'found', content: answer.body };
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
