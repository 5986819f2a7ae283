/**
 * `listen_address` (and `runner run --listen-address`): where the runner serves /metrics and
 * /health. gitlab-runner's forms: `host:port`, `:port` (every interface), `[v6]:port`.
 */

export interface ListenAddress {
  /** Undefined: every interface. */
  host?: string;
  port: number;
}

export const LISTEN_ADDRESS_HINT = 'must be host:port (for example 127.0.0.1:9252 or :9252)';

/** The parsed address, or null when `value` has none of the accepted forms. */
export function parseListenAddress(value: string): ListenAddress | null {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]\s]*)):(\d{1,5})$/.exec(value.trim());
  if (!match) return null;
  const port = Number(match[3]);
  if (port > 65535) return null;
  const host = match[1] ?? match[2];
  return host ? { host, port } : { port };
}

export function formatListenAddress(address: ListenAddress): string {
  if (address.host === undefined) return `:${address.port}`;
  return address.host.includes(':') ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}
