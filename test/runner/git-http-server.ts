/** A smart-HTTP git server (git http-backend) for the repositories under a directory, answering only `gitlab-ci-token:<token>`, over HTTP or HTTPS. */
import { spawn } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface GitServer {
  url: string;
  /** How many requests were answered 401 (no or other credentials). */
  refused(): number;
  close(): Promise<void>;
}

export async function startGitServer(root: string, token: string, tls?: { cert: string; key: string }): Promise<GitServer> {
  const expected = `Basic ${Buffer.from(`gitlab-ci-token:${token}`).toString('base64')}`;
  let refused = 0;
  const handler = (request: http.IncomingMessage, response: http.ServerResponse): void => {
    if (request.headers.authorization !== expected) {
      refused += 1;
      response.writeHead(401, { 'www-authenticate': 'Basic realm="GitLab"' }).end();
      return;
    }
    const url = new URL(request.url ?? '/', 'http://server');
    const backend = spawn('git', ['http-backend'], {
      env: { ...process.env, GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', REQUEST_METHOD: request.method ?? 'GET', PATH_INFO: url.pathname, QUERY_STRING: url.search.slice(1), CONTENT_TYPE: request.headers['content-type'] ?? '', REMOTE_USER: 'gitlab-ci-token' },
    });
    request.pipe(backend.stdin);
    const chunks: Buffer[] = [];
    backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    backend.on('close', () => {
      const output = Buffer.concat(chunks);
      const split = output.indexOf('\r\n\r\n');
      const headers = output.subarray(0, split).toString().split('\r\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const);
      const status = Number(headers.find(([name]) => name.toLowerCase() === 'status')?.[1].split(' ')[0] ?? 200);
      response.writeHead(status, Object.fromEntries(headers.filter(([name]) => name.toLowerCase() !== 'status'))).end(output.subarray(split + 4));
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refused: () => refused,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
