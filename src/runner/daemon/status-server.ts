/**
 * The small HTTP server on `listen_address`: `GET /metrics` (Prometheus text from the
 * runner's own registry) and `GET /health` (JSON; 200 while the runner takes jobs with at
 * least one healthy entry, 503 while it stops or when every entry is disabled).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { formatListenAddress, type ListenAddress } from '../config/listen-address.ts';
import type { DaemonStatus, RunnerMetrics } from './metrics.ts';

export interface StatusServerOptions {
  metrics: RunnerMetrics;
  status: () => DaemonStatus;
}

export interface HealthReport {
  status: 'ok' | 'stopping' | 'unhealthy';
  concurrent: number;
  jobs: number;
  runners: { runner: string; name: string; healthy: boolean; running: number }[];
}

export function healthOf(status: DaemonStatus): HealthReport {
  const runners = status.runners.map(({ runner, name, healthy, running }) => ({ runner, name, healthy, running }));
  const jobs = runners.reduce((sum, entry) => sum + entry.running, 0);
  const state = !status.accepting ? 'stopping' : runners.some((entry) => entry.healthy) ? 'ok' : 'unhealthy';
  return { status: state, concurrent: status.concurrent, jobs, runners };
}

export class StatusServer {
  private server: Server | null = null;
  /** The address it listens on (the port the system chose for port 0). */
  address: ListenAddress | null = null;

  constructor(private readonly options: StatusServerOptions) {}

  /** Starts listening; rejects with a one-line message when the address cannot be had. */
  async listen(address: ListenAddress): Promise<ListenAddress> {
    const server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        response.end(`${error instanceof Error ? error.message : String(error)}\n`);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        const why = error.code === 'EADDRINUSE' ? 'address already in use' : error.code === 'EACCES' ? 'permission denied' : error.message;
        reject(new Error(`cannot listen on ${formatListenAddress(address)} (listen_address): ${why}`));
      });
      server.listen(address.port, address.host, () => resolve());
    });
    const bound = server.address() as AddressInfo;
    this.server = server;
    this.address = { host: address.host, port: bound.port };
    return this.address;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.address = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://runner').pathname;
    if (path !== '/metrics' && path !== '/health') {
      this.send(request, response, 404, 'text/plain; charset=utf-8', '404 Not Found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      this.send(request, response, 405, 'text/plain; charset=utf-8', '405 Method Not Allowed\n');
      return;
    }
    if (path === '/metrics') {
      this.send(request, response, 200, this.options.metrics.contentType, await this.options.metrics.render());
      return;
    }
    const health = healthOf(this.options.status());
    this.send(request, response, health.status === 'ok' ? 200 : 503, 'application/json', `${JSON.stringify(health)}\n`);
  }

  private send(request: IncomingMessage, response: ServerResponse, status: number, contentType: string, body: string): void {
    response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
    response.end(request.method === 'HEAD' ? undefined : body);
  }
}
