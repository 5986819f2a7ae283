import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { isLocalAddress } from '../../src/coordinator/services/outbound/local-addresses.ts';
import { OutboundFailure, sendOutbound } from '../../src/coordinator/services/outbound/outbound-http.ts';
import { within } from '../helpers/bounded.ts';

const bounded = <T>(promise: Promise<T>, what: string): Promise<T> => within(promise, 10_000, what);

interface Receiver {
  server: Server;
  port: number;
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
}

async function receiver(host: string, answer: (request: IncomingMessage, response: ServerResponse) => void): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(request, response);
    });
  });
  // Connections are counted too: a refused request must not even connect.
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

async function refusal(promise: Promise<unknown>): Promise<OutboundFailure> {
  const error = await promise.then(
    () => assert.fail('the request was sent'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof OutboundFailure, String(error));
  return error;
}

describe('the outbound HTTP client', () => {
  let ok: Receiver;
  let okV6: Receiver;
  let silent: Receiver;
  let connections = 0;

  before(async () => {
    ok = await receiver('127.0.0.1', (_request, response) => response.writeHead(200, { 'content-type': 'text/plain' }).end('fine'));
    ok.server.on('connection', () => (connections += 1));
    okV6 = await receiver('::1', (_request, response) => response.end('fine'));
    okV6.server.on('connection', () => (connections += 1));
    // Never answers: the client's time limit ends the request.
    silent = await receiver('127.0.0.1', () => undefined);
  });
  after(() => {
    for (const { server } of [ok, okV6, silent]) server.closeAllConnections();
    for (const { server } of [ok, okV6, silent]) server.close();
  });

  it('classifies loopback, private, link-local, unspecified, multicast and IPv4-mapped forms as local, and public addresses not', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', 'fe80::1', 'fc00::1', 'fd12::1', '0.0.0.0', '::', '224.0.0.1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '100.64.0.1']) {
      assert.equal(isLocalAddress(address), true, address);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) assert.equal(isLocalAddress(address), false, address);
  });

  it('refuses 127.0.0.1, ::1, 10.x, 169.254.x, an IPv4-mapped loopback and `localhost` (after resolving it) without connecting', async () => {
    const before = connections;
    const targets = [
      `http://127.0.0.1:${ok.port}/hook`,
      `http://[::1]:${okV6.port}/hook`,
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      `http://[::ffff:127.0.0.1]:${ok.port}/hook`,
    ];
    for (const url of targets) {
      const error = await refusal(bounded(sendOutbound({ method: 'POST', url, body: '{}', allowLocal: false }), `POST ${url}`));
      assert.equal(error.kind, 'refused-address', url);
    }
    const byName = await refusal(bounded(sendOutbound({ method: 'POST', url: `http://localhost:${ok.port}/hook?token=s3cret`, body: '{}', allowLocal: false }), 'POST localhost'));
    assert.equal(byName.kind, 'refused-address');
    assert.match(byName.message, /localhost resolves to a local address/);
    assert.doesNotMatch(byName.message, /s3cret/);
    assert.equal(connections, before, 'no connection was made');
    assert.equal(ok.requests.length + okV6.requests.length, 0);
  });

  it('sends to a local receiver when local requests are allowed, headers and body as given', async () => {
    const answer = await bounded(sendOutbound({ method: 'POST', url: `http://localhost:${ok.port}/hook?a=1`, headers: { 'x-gitlab-event': 'Push Hook' }, body: '{"x":1}', allowLocal: true }), 'POST');
    assert.deepEqual([answer.status, answer.body], [200, 'fine']);
    const [received] = ok.requests;
    assert.deepEqual([received?.method, received?.url, received?.headers['x-gitlab-event'], received?.headers['content-length'], received?.body], ['POST', '/hook?a=1', 'Push Hook', '7', '{"x":1}']);
  });

  it('follows no redirect: a 302 is the answer, and its target is never asked', async () => {
    const target = await receiver('127.0.0.1', (_request, response) => response.end('redirected'));
    const redirecting = await receiver('127.0.0.1', (_request, response) => response.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end());
    try {
      const answer = await bounded(sendOutbound({ method: 'POST', url: `http://127.0.0.1:${redirecting.port}/`, body: '', allowLocal: true }), 'POST');
      assert.equal(answer.status, 302);
      assert.equal(target.requests.length, 0);
    } finally {
      redirecting.server.close();
      target.server.close();
    }
  });

  it('gives up on a receiver that does not answer within the time limit, naming the host only', async () => {
    const error = await refusal(bounded(sendOutbound({ method: 'POST', url: `http://127.0.0.1:${silent.port}/hook?access_token=s3cret`, body: '{}', allowLocal: true, timeoutMs: 300 }), 'the time-out'));
    assert.equal(error.kind, 'timeout');
    assert.equal(error.message, `127.0.0.1:${silent.port} did not answer within 300 ms`);
  });

  it('keeps a connection between requests to one receiver, and opens a new one when the receiver closed it', async () => {
    const kept = await receiver('127.0.0.1', (_request, response) => response.end('kept'));
    let opened = 0;
    kept.server.on('connection', () => (opened += 1));
    try {
      const send = () => bounded(sendOutbound({ method: 'POST', url: `http://127.0.0.1:${kept.port}/hook`, body: '{}', allowLocal: true }), 'POST');
      for (let index = 0; index < 3; index += 1) assert.equal((await send()).body, 'kept');
      assert.equal(opened, 1, 'three requests, one connection');
      kept.server.closeIdleConnections();
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal((await send()).body, 'kept');
      assert.equal(opened, 2);
      assert.equal(kept.requests.length, 4);
    } finally {
      kept.server.close();
    }
  });

  it('never lets a connection kept for a request allowed local addresses serve one that is not', async () => {
    const local = await receiver('127.0.0.1', (_request, response) => response.end('local'));
    let opened = 0;
    local.server.on('connection', () => (opened += 1));
    try {
      const url = `http://localhost:${local.port}/hook`;
      assert.equal((await bounded(sendOutbound({ method: 'POST', url, body: '{}', allowLocal: true }), 'allowed')).body, 'local');
      const error = await refusal(bounded(sendOutbound({ method: 'POST', url, body: '{}', allowLocal: false }), 'refused'));
      assert.equal(error.kind, 'refused-address');
      assert.deepEqual([opened, local.requests.length], [1, 1]);
    } finally {
      local.server.close();
    }
  });

  it('refuses URLs that are not http or https', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://example.com/', 'not a url']) {
      assert.equal((await refusal(sendOutbound({ method: 'GET', url, allowLocal: true }))).kind, 'invalid-url', url);
    }
  });
});
