import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a runner declared of a job's trace in its final update. */
export interface FinalUpdate {
  state: string;
  checksum: string | undefined;
  bytesize: number | undefined;
}

/**
 * Between one runner and its coordinator: forwards every request as is and records what the
 * test checks the coordinators against, from the runner's side of the wire — which jobs
 * reached the runner (a 201 to `POST /jobs/request`), and the trace checksum and size the
 * runner declared in its final update (the last one sent: a final update the killed
 * coordinator took without answering is sent again, and then answered 403 as the job is no
 * longer running). When the coordinator cannot be reached (killed), the runner's connection is
 * cut, as it would be without the proxy.
 */
export interface RecordingProxy {
  url: string;
  /** Jobs whose payload reached the runner. */
  delivered: Set<number>;
  finals: Map<number, FinalUpdate>;
  /** Requests that found the coordinator unreachable. */
  unreachable: number;
  close(): Promise<void>;
}

const collect = (stream: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });

export async function startRecordingProxy(upstreamPort: number): Promise<RecordingProxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const proxy: RecordingProxy = { url: '', delivered: new Set(), finals: new Map(), unreachable: 0, close: async () => {} };
  const server = createServer((incoming, outgoing) => {
    void forward(incoming, outgoing).catch(() => outgoing.destroy());
  });

  async function forward(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const body = await collect(incoming);
    const url = incoming.url ?? '';
    const update = /^\/api\/v4\/jobs\/(\d+)$/.exec(url);
    if (incoming.method === 'PUT' && update) {
      const sent = JSON.parse(body.toString()) as { state?: string; checksum?: string; output?: { checksum?: string; bytesize?: number } };
      if (sent.state && sent.state !== 'running') {
        proxy.finals.set(Number(update[1]), { state: sent.state, checksum: sent.output?.checksum ?? sent.checksum, bytesize: sent.output?.bytesize });
      }
    }
    const answer = await new Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }>((resolve, reject) => {
      const upstream = httpRequest({ host: '127.0.0.1', port: upstreamPort, method: incoming.method, path: incoming.url, headers: incoming.headers, agent }, (response) => {
        collect(response).then((bytes) => resolve({ status: response.statusCode ?? 502, headers: response.headers, body: bytes }), reject);
      });
      upstream.on('error', reject);
      upstream.end(body);
    }).catch((error: unknown) => {
      proxy.unreachable += 1;
      throw error;
    });
    if (incoming.method === 'POST' && url === '/api/v4/jobs/request' && answer.status === 201) {
      proxy.delivered.add((JSON.parse(answer.body.toString()) as { id: number }).id);
    }
    const headers = { ...answer.headers };
    delete headers['transfer-encoding'];
    delete headers.connection;
    headers['content-length'] = String(answer.body.length);
    outgoing.writeHead(answer.status, headers);
    outgoing.end(answer.body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    agent.destroy();
  };
  return proxy;
}
