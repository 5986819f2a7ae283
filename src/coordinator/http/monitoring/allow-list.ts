import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** GitLab's default `monitoring.ip_whitelist`: loopback only. */
export const DEFAULT_MONITORING_IP_WHITELIST: readonly string[] = ['127.0.0.0/8', '::1/128'];

/**
 * Who may read /-/health, /-/readiness, /-/liveness and /-/metrics: GitLab's
 * `monitoring.ip_whitelist`, addresses and CIDR ranges of either family (an IPv4 range also
 * matches the same addresses mapped into IPv6, `::ffff:127.0.0.1`).
 */
export class MonitoringAllowList {
  private constructor(private readonly ranges: BlockList) {}

  /** Throws, naming the entry, when an entry is neither an address nor a CIDR range. */
  static parse(entries: readonly string[]): MonitoringAllowList {
    const ranges = new BlockList();
    for (const raw of entries) {
      const entry = raw.trim();
      const [address = '', prefix, ...rest] = entry.split('/');
      const family = isIP(address);
      const bits = family === 4 ? 32 : 128;
      const length = prefix === undefined ? bits : Number(prefix);
      if (family === 0 || rest.length > 0 || !/^\d*$/.test(prefix ?? '') || prefix === '' || !(length >= 0 && length <= bits)) {
        throw new Error(`monitoring_ip_whitelist: ${JSON.stringify(raw)} is not an IP address or CIDR range`);
      }
      ranges.addSubnet(address, length, family === 4 ? 'ipv4' : 'ipv6');
    }
    return new MonitoringAllowList(ranges);
  }

  includes(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.ranges.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /**
   * Whether the request may read the monitoring endpoints: the peer that connected is in the
   * list, and so is every address `X-Forwarded-For` names. A reverse proxy on loopback thus
   * passes on its clients' requests only when they are allowed too, and a client outside the
   * list cannot get in by naming an allowed address. (GitLab takes the client address from
   * X-Forwarded-For behind proxies it trusts; this asks the same of every hop.)
   */
  allows(request: FastifyRequest): boolean {
    const peer = request.raw.socket.remoteAddress;
    if (peer === undefined || !this.includes(peer)) return false;
    const forwarded = request.headers['x-forwarded-for'];
    if (forwarded === undefined) return true;
    for (const header of [forwarded].flat()) {
      for (const hop of header.split(',')) {
        if (!this.includes(withoutPort(hop.trim()))) return false;
      }
    }
    return true;
  }
}

/** `1.2.3.4:5678` and `[::1]:5678` (as some proxies write them) without the port. */
function withoutPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1]!;
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4WithPort ? v4WithPort[1]! : hop;
}
