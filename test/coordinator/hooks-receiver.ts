import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface HookReceiver {
  server: Server;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  port: number;
  requests: ReceivedHook[];
  /** Answers held back ('hold'); end them to let the sender go on. */
  held: ServerResponse[];
  close(): Promise<void>;
}

/** A webhook receiver on loopback; `answer` picks each status in turn, or 'hold' to keep the answer waiting in `held`. */
export async function hookReceiver(answer: (count: number) => number | 'hold' = () => 200): Promise<HookReceiver> {
  const requests: ReceivedHook[] = [];
  const held: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ url: request.url ?? '', headers: request.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
      const status = answer(requests.length);
      if (status === 'hold') held.push(response);
      else response.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${String(status)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    server, base: `http://127.0.0.1:${port}`, port, requests, held,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
