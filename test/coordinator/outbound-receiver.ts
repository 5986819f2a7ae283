/** A receiver for outbound-client tests that tells which connection each request came on. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ReceivedRequest {
  method: string;
  url: string;
  body: string;
  /** Among this receiver's requests, from 1. */
  index: number;
  /** The connection it came on, numbered from 1 in the order connections carried a first request. */
  connection: number;
  /** Among that connection's requests, from 1. */
  perConnection: number;
  /** Closes its connection unanswered: a FIN (`end`) or a reset. */
  drop(how: 'end' | 'reset'): void;
}

export interface TrackedReceiver {
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted (TLS ones refused in their handshake included). */
  readonly connections: number;
  /** Connections still open. */
  readonly open: number;
  /** Connections the client ended (its FIN came first). */
  readonly closedByPeer: number;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  host: string;
  port?: number;
  tls?: { key: string; cert: string };
  /** Default: 200 `fine`. */
  answer?: (request: ReceivedRequest, response: ServerResponse) => void;
}

export async function trackedReceiver(options: ReceiverOptions): Promise<TrackedReceiver> {
  const requests: ReceivedRequest[] = [];
  const carried = new WeakMap<object, { id: number; count: number }>();
  let carriers = 0;
  let connections = 0;
  let open = 0;
  let closedByPeer = 0;
  const answer = options.answer ?? ((_request, response) => response.end('fine'));
  const handle = (incoming: IncomingMessage, response: ServerResponse): void => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const socket = incoming.socket;
      let carrier = carried.get(socket);
      if (!carrier) {
        carriers += 1;
        carrier = { id: carriers, count: 0 };
        carried.set(socket, carrier);
      }
      carrier.count += 1;
      const received: ReceivedRequest = {
        method: incoming.method ?? '',
        url: incoming.url ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        index: requests.length + 1,
        connection: carrier.id,
        perConnection: carrier.count,
        drop: (how) => void (how === 'end' ? socket.destroy() : socket.resetAndDestroy()),
      };
      requests.push(received);
      answer(received, response);
    });
  };
  const server: Server = options.tls ? createTlsServer({ key: options.tls.key, cert: options.tls.cert }, handle) : createServer(handle);
  // Idle connections are left for the client to close.
  server.keepAliveTimeout = 600_000;
  server.on('connection', (socket: Socket) => {
    connections += 1;
    open += 1;
    let ended = false;
    socket.on('end', () => {
      if (!ended) closedByPeer += 1;
      ended = true;
    });
    socket.on('close', () => (open -= 1));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    get connections() {
      return connections;
    },
    get open() {
      return open;
    },
    get closedByPeer() {
      return closedByPeer;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A key and a self-signed certificate for `name` (and 127.0.0.1), made by openssl. */
export function selfSignedCertificate(name: string): { key: string; cert: string } {
  const directory = mkdtempSync(path.join(tmpdir(), 'gantry-outbound-tls-'));
  try {
    const key = path.join(directory, 'key.pem');
    const cert = path.join(directory, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name},IP:127.0.0.1`], { stdio: 'ignore' });
    return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
