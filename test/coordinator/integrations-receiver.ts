import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request an integration sent, its body as text. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type ReceiverAnswer = { status: number; body?: string };

/** An HTTP receiver on loopback for integrations; `answer` decides each reply from the request (default 200 with no body). */
export async function integrationReceiver(
  answer: (request: ReceivedRequest) => ReceiverAnswer = () => ({ status: 200 }),
): Promise<{ server: Server; base: string; requests: ReceivedRequest[] }> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(received);
      const { status, body } = answer(received);
      response.writeHead(status, { 'content-type': 'application/json' }).end(body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
