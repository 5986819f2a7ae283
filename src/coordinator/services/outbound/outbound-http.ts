import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { keptConnections, type KeyedRequestOptions } from './kept-connections.ts';
import { isLocalAddress } from './local-addresses.ts';

/** A name's addresses, as `dns.lookup(name, { all: true })` answers them. */
export type NameLookup = (hostname: string) => Promise<LookupAddress[]>;

/** What an outbound request may send (its body is built in memory by the caller, and small). */
export interface OutboundRequest {
  method: 'GET' | 'POST' | 'PUT';
  url: string;
  headers?: Readonly<Record<string, string>>;
  body?: string;
  /** Whole request, name resolution to the last byte of the answer (default 10 s). */
  timeoutMs?: number;
  /** `false` (the default) refuses local addresses (see local-addresses.ts), checked after DNS. */
  allowLocal: boolean;
  /** Default true; an integration's `enable_ssl_verification: false` turns it off. */
  verifyTls?: boolean;
  /** Resolves the URL's name (default: the system's resolver, as `dns.lookup`); tests answer names with it. */
  lookup?: NameLookup;
  /** How much of the answer's body is kept (default OUTBOUND_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The first `maxResponseBytes` of the answer's body (the rest is read and dropped). */
  body: string;
  /** The body was longer than what was kept. */
  truncated: boolean;
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
 * The one HTTP client for requests to URLs users configure (integrations, webhooks).
 * It requests exactly the URL given, follows no redirect (a 3xx is an answer like any other),
 * and, unless `allowLocal`, refuses local addresses: an IP literal before connecting, a name
 * after resolving it. Every request resolves its name again, and connections are kept per
 * resolved address set (kept-connections.ts): a kept connection serves only a request
 * whose name resolves, now, to the checked addresses it was opened to, so a name that changes
 * its answer (to a local address, say) gets a new connection and a new check.
 */
export async function sendOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  const url = parseTarget(request.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!request.allowLocal && isIP(host) !== 0 && isLocalAddress(host)) {
    throw new OutboundFailure('refused-address', `requests to the local address ${host} are not allowed`);
  }
  const deadline = Date.now() + (request.timeoutMs ?? OUTBOUND_DEFAULT_TIMEOUT_MS);
  const addresses = isIP(host) === 0 ? await resolveName(host, request, url, deadline) : undefined;
  try {
    return await requestOnce(request, url, addresses, deadline, true);
  } catch (error) {
    // A kept connection the receiver had closed as we reused it (the usual case: it reached no one), so send it once more on a
    // new one, within the same time limit. A receiver that read it and then dropped the connection unanswered gets it twice.
    if (!(error instanceof StaleConnection)) throw error;
    return requestOnce(request, url, addresses, deadline, false);
  }
}

/** A kept connection ended before any answer came (the receiver closed it while idle). */
class StaleConnection extends Error {}

function requestOnce(request: OutboundRequest, url: URL, addresses: LookupAddress[] | undefined, deadline: number, mayReuse: boolean): Promise<OutboundResponse> {
  const secure = url.protocol === 'https:';
  const client = secure ? https : http;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);
  const headers: Record<string, string> = { 'user-agent': 'Gantry', ...request.headers };
  if (body) headers['content-length'] = String(body.length);
  const options: KeyedRequestOptions = {
    method: request.method,
    headers,
    agent: mayReuse ? keptConnections(secure, request.allowLocal, request.verifyTls ?? true) : false,
    rejectUnauthorized: request.verifyTls ?? true,
  };
  if (addresses) {
    options.lookup = answerWith(addresses);
    options.resolvedAddresses = addresses.map((entry) => entry.address).join(',');
  }
  return new Promise<OutboundResponse>((resolve, reject) => {
    const outgoing = client.request(url, options);
    const timer = setTimeout(() => outgoing.destroy(timedOut(request, url)), Math.max(0, deadline - Date.now()));
    let answered = false;
    const fail = (error: Error): void => {
      clearTimeout(timer);
      if (!answered && outgoing.reusedSocket && isResetCode(error)) reject(new StaleConnection());
      else reject(error instanceof OutboundFailure ? error : new OutboundFailure('network', `${url.host}: ${errorCode(error)}`));
    };
    outgoing.on('error', fail);
    outgoing.on('response', (response) => {
      answered = true;
      const kept: Buffer[] = [];
      let size = 0;
      const cap = request.maxResponseBytes ?? OUTBOUND_MAX_RESPONSE_BYTES;
      response.on('data', (chunk: Buffer) => {
        if (size < cap) kept.push(chunk.subarray(0, cap - size));
        size += chunk.length;
      });
      response.on('error', fail);
      response.on('close', () => {
        if (!response.complete) fail(new OutboundFailure('network', `${url.host} closed the connection before its answer ended`));
      });
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(kept).toString('utf8'), truncated: size > cap });
      });
    });
    outgoing.end(body);
  });
}

const isResetCode = (error: Error): boolean => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ECONNRESET' || code === 'EPIPE';
};

const timedOut = (request: OutboundRequest, url: URL): OutboundFailure =>
  new OutboundFailure('timeout', `${url.host} did not answer within ${request.timeoutMs ?? OUTBOUND_DEFAULT_TIMEOUT_MS} ms`);

/** A name's addresses, local ones refused unless allowed (one among several refuses the name), within the request's time. */
async function resolveName(hostname: string, request: OutboundRequest, url: URL, deadline: number): Promise<LookupAddress[]> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(request, url)), Math.max(0, deadline - Date.now()));
  });
  let addresses: LookupAddress[];
  try {
    addresses = await Promise.race([(request.lookup ?? systemLookup)(hostname), expired]);
  } catch (error) {
    if (error instanceof OutboundFailure) throw error;
    throw new OutboundFailure('network', `${hostname}: ${error instanceof Error ? errorCode(error) : 'lookup failed'}`);
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0) throw new OutboundFailure('network', `${hostname}: no address`);
  if (!request.allowLocal && addresses.some((entry) => isLocalAddress(entry.address))) {
    throw new OutboundFailure('refused-address', `${hostname} resolves to a local address, and requests to local addresses are not allowed`);
  }
  return addresses;
}

const systemLookup: NameLookup = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses: LookupAddress[]) => (error ? reject(error) : resolve(addresses)));
  });

/** The socket's lookup: the addresses resolved (and checked) for this request, with no second resolution. */
function answerWith(addresses: LookupAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  };
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
