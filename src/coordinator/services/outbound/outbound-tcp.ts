import { connect, isIP } from 'node:net';
import { isLocalAddress } from './local-addresses.ts';
import { checkedLookup, OUTBOUND_DEFAULT_TIMEOUT_MS, OutboundFailure } from './outbound-http.ts';

export interface OutboundLines {
  host: string;
  port: number;
  /** Each written with a newline; small (built in memory by the caller). */
  lines: readonly string[];
  allowLocal: boolean;
  /** Connection to the last byte written (default 10 s). */
  timeoutMs?: number;
}

/**
 * Writes lines to a TCP listener a user configured (irker), then closes the connection. The same
 * rules as outbound HTTP requests: local addresses refused unless allowed, an IP literal before
 * connecting and a name through the socket's own lookup; failures name the host only.
 */
export async function sendOutboundLines(request: OutboundLines): Promise<void> {
  const host = request.host.replace(/^\[|\]$/g, '');
  if (host === '' || !Number.isInteger(request.port) || request.port < 1 || request.port > 65_535) throw new OutboundFailure('invalid-url', 'the host or port is not valid');
  if (!request.allowLocal && isIP(host) !== 0 && isLocalAddress(host)) {
    throw new OutboundFailure('refused-address', `requests to the local address ${host} are not allowed`);
  }
  const timeoutMs = request.timeoutMs ?? OUTBOUND_DEFAULT_TIMEOUT_MS;
  const payload = request.lines.map((line) => `${line}\n`).join('');
  await new Promise<void>((resolve, reject) => {
    const socket = connect({ host, port: request.port, lookup: request.allowLocal ? undefined : checkedLookup });
    const timer = setTimeout(() => socket.destroy(new OutboundFailure('timeout', `${host}:${request.port} did not take the lines within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error instanceof OutboundFailure ? error : new OutboundFailure('network', `${host}:${request.port}: ${(error as NodeJS.ErrnoException).code ?? error.name}`));
    });
    socket.on('connect', () => socket.end(payload));
    socket.on('finish', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
  });
}
