import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLocalAddress } from './local-addresses.ts';

/** What an outbound request may send (its body is built in memory by the caller, and small). */
export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Readonly<Record<string, string>>;
  body?: string;
  /** Whole request, connection to the last byte of the answer (default 10 s). */
  timeoutMs?: number;
  /** `false` (the default) refuses local addresses (see local-addresses.ts), checked after DNS. */
  allowLocal: boolean;
  /** Default true; an integration's `enable_ssl_verification: false` turns it off. */
  verifyTls?: boolean;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The first OUTBOUND_MAX_RESPONSE_BYTES of the answer's body (the rest is read and dropped). */
  body: string;
}

export type OutboundFailureKind = 'invalid-url' | 'refused-address' | 'timeout' | 'network';

/**
 * A request that got no answer. Its message names the host only: URLs may carry secrets
 * (`?access_token=`, `user:password@`) and the message is logged and kept with the task.
 */
export class OutboundFailure extends Error {
  constructor(
    readonly kind: OutboundFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundFailure';
  }
}

export const OUTBOUND_DEFAULT_TIMEOUT_MS = 10_000;
export const OUTBOUND_MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The one HTTP client for requests to URLs users configure (integrations, later webhooks).
 * It requests exactly the URL given, follows no redirect (a 3xx is an answer like any other),
 * and, unless `allowLocal`, refuses local addresses: an IP literal before connecting, a name
 * after resolving it, through the socket's own `lookup`, so the address checked is the one
 * connected to (a name cannot resolve to a public address for the check and a private one
 * for the connection).
 */
export async function sendOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  const url = parseTarget(request.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!request.allowLocal && isIP(host) !== 0 && isLocalAddress(host)) {
    throw new OutboundFailure('refused-address', `requests to the local address ${host} are not allowed`);
  }
  const timeoutMs = request.timeoutMs ?? OUTBOUND_DEFAULT_TIMEOUT_MS;
  const client = url.protocol === 'https:' ? https : http;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string> = { 'user-agent': 'Gantry', ...request.headers };
  if (body) headers['content-length'] = String(body.length);
  return new Promise<OutboundResponse>((resolve, reject) => {
    const outgoing = client.request(url, {
      method: request.method,
      headers,
      agent: false,
      lookup: request.allowLocal ? undefined : checkedLookup,
      rejectUnauthorized: request.verifyTls ?? true,
    });
    const timer = setTimeout(() => outgoing.destroy(new OutboundFailure('timeout', `${url.host} did not answer within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      reject(error instanceof OutboundFailure ? error : new OutboundFailure('network', `${url.host}: ${errorCode(error)}`));
    };
    outgoing.on('error', fail);
    outgoing.on('response', (response) => {
      const kept: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        if (size < OUTBOUND_MAX_RESPONSE_BYTES) kept.push(chunk.subarray(0, OUTBOUND_MAX_RESPONSE_BYTES - size));
        size += chunk.length;
      });
      response.on('error', fail);
      response.on('close', () => {
        if (!response.complete) fail(new OutboundFailure('network', `${url.host} closed the connection before its answer ended`));
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(kept).toString('utf8') });
      });
    });
    outgoing.end(body);
  });
}

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundFailure('invalid-url', 'the URL is not valid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundFailure('invalid-url', `only http and https URLs are requested, not ${url.protocol}`);
  return url;
}

/** Error codes (ECONNREFUSED …) rather than messages, which may quote the address asked for. */
function errorCode(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ?? error.name;
}

/** DNS resolution that hands the socket only addresses that are not local, or fails. */
export const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    // One local address among several refuses the name: which one a connection uses is not ours to choose.
    const local = addresses.find((entry) => isLocalAddress(entry.address));
    if (local || addresses.length === 0) {
      callback(new OutboundFailure('refused-address', `${hostname} resolves to a local address, and requests to local addresses are not allowed`), '', 0);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
