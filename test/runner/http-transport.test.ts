import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { readText, Transport, TransportError } from '../../src/runner/http/transport.ts';

async function listen(server: Server, scheme = 'http'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type Seen = { method: string; url: string; headers: IncomingMessage['headers']; body: Buffer };

describe('runner HTTP transport against plain local servers', () => {
  // /api/v4/hop/N answers 302 to hop N-1; hop 0 answers 200.
  const seen: Seen[] = [];
  let connections = 0;
  let other: Server;
  let otherUrl: string;
  let main: Server;
  let mainUrl: string;
  let transport: Transport;
  const handler =
    (routes: Record<string, (request: IncomingMessage, response: Parameters<RequestListener>[1]) => void>): RequestListener =>
    (request, response) => {
      bodyOf(request).then(
        (body) => {
          seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
          const route = routes[(request.url ?? '').replace(/\?.*$/, '')];
          const hop = /^\/api\/v4\/hop\/(\d+)$/.exec(request.url ?? '');
          if (hop && Number(hop[1]) > 0) response.writeHead(302, { location: `/api/v4/hop/${Number(hop[1]) - 1}` }).end();
          else if (route) route(request, response);
          else response.writeHead(200, { 'content-type': 'text/plain' }).end(`${request.method} ${request.url} ${body.length}`);
        },
        () => response.destroy(),
      );
    };

  before(async () => {
    other = createHttpServer(handler({}));
    otherUrl = await listen(other);
    main = createHttpServer(
      handler({
        '/api/v4/to-other': (_request, response) => response.writeHead(302, { location: `${otherUrl}/landing` }).end(),
        '/api/v4/same-then-other': (_request, response) => response.writeHead(307, { location: '/api/v4/to-other' }).end(),
        '/api/v4/see-other': (_request, response) => response.writeHead(303, { location: '/api/v4/landing' }).end(),
        '/api/v4/temporary': (_request, response) => response.writeHead(307, { location: '/api/v4/landing' }).end('moved'),
        '/api/v4/stall': (_request, response) => {
          response.writeHead(200, { 'content-type': 'application/octet-stream' });
          response.write('first chunk;');
        },
        '/api/v4/no-answer': () => undefined,
        '/api/v4/limited-once': (_request, response) => {
          const limited = seen.filter((request) => request.url === '/api/v4/limited-once').length === 1;
          if (limited) response.writeHead(429, { 'ratelimit-resettime': new Date(Date.now() + 50).toUTCString() }).end('Retry later');
          else response.writeHead(202).end();
        },
        '/api/v4/limited': (_request, response) => response.writeHead(429, { 'ratelimit-resettime': new Date(Date.now() + 50).toUTCString() }).end('Retry later'),
        '/api/v4/digest': (request, response) => {
          const body = seen.at(-1)?.body ?? Buffer.alloc(0);
          response.writeHead(200).end(`${body.length} ${createHash('sha256').update(body).digest('hex')} ${String(request.headers['transfer-encoding'])}`);
        },
      }),
    );
    main.on('connection', () => connections++);
    mainUrl = await listen(main);
    // Long enough that a loaded machine's pauses between chunks never reach it, short enough to wait for.
    transport = new Transport({ url: mainUrl, userAgent: 'test', idleTimeoutMs: 2_000 });
  });
  after(async () => {
    await transport.close();
    await Promise.all([stop(main), stop(other)]);
  });

  it('keeps connections alive between requests', async () => {
    const before = connections;
    for (let index = 0; index < 3; index++) {
      assert.equal((await transport.send('GET', 'ping', { headers: {} })).status, 200);
      // undici hands a socket back to the pool one event-loop turn after its answer ended.
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.equal(connections - before, 1);
    const backToBack = connections;
    for (let index = 0; index < 10; index++) assert.equal((await transport.send('GET', 'ping', { headers: {} })).status, 200);
    assert.ok(connections - backToBack <= 1, `${connections - backToBack} new connections for 10 requests in a row`);
  });

  it('follows up to 5 redirects and refuses a 6th', async () => {
    const followed = await transport.send('GET', 'hop/5', { headers: {} });
    assert.equal(followed.status, 200);
    assert.equal(followed.text, 'GET /api/v4/hop/0 0');
    await assert.rejects(transport.send('GET', 'hop/6', { headers: {} }), (error: unknown) => error instanceof TransportError && /more than 5 redirects/.test(error.message));
  });

  it('keeps credentials on a same-origin redirect and drops them on another origin', async () => {
    const credentials = { 'job-token': 'jt', 'private-token': 'pt', authorization: 'Bearer x', cookie: 'a=b', 'x-kept': 'yes' };
    const response = await transport.send('GET', 'same-then-other', { headers: credentials });
    assert.equal(response.status, 200);
    const [sameOrigin, landing] = seen.slice(-2);
    assert.equal(sameOrigin.url, '/api/v4/to-other');
    assert.equal(sameOrigin.headers['job-token'], 'jt');
    assert.equal(landing.url, '/landing');
    for (const name of ['job-token', 'private-token', 'authorization', 'cookie']) assert.equal(landing.headers[name], undefined, name);
    assert.equal(landing.headers['x-kept'], 'yes');
  });

  it('turns a POST answered 303 into a GET without body; 307 resends the body; a streamed body gets the 3xx itself', async () => {
    const seeOther = await transport.json('POST', 'see-other', { a: 1 });
    assert.equal(seeOther.status, 200);
    const landing = seen.at(-1);
    assert.equal(landing?.method, 'GET');
    assert.equal(landing?.body.length, 0);
    assert.equal(landing?.headers['content-type'], undefined);
    assert.equal((await transport.json('POST', 'temporary', { a: 1 })).text, 'POST /api/v4/landing 7');
    const streamed = await transport.raw('POST', 'temporary', { headers: {}, body: Readable.from([Buffer.from('abc')]) });
    assert.equal(streamed.statusCode, 307);
    assert.equal(await readText(streamed.body), 'moved');
  });

  it('re-sends a Buffer body after a 429 with RateLimit-ResetTime, a streamed one never', async () => {
    const before = seen.length;
    const answered = await transport.send('PATCH', 'limited-once', { headers: { 'content-type': 'text/plain' }, body: Buffer.from('trace bytes') });
    assert.equal(answered.status, 202);
    assert.deepEqual(
      seen.slice(before).map((request) => request.body.toString()),
      ['trace bytes', 'trace bytes'],
    );
    const streamedBefore = seen.length;
    const streamed = await transport.send('PATCH', 'limited', { headers: { 'content-type': 'text/plain' }, body: Readable.from([Buffer.from('once')]) });
    assert.equal(streamed.status, 429);
    assert.equal(seen.length - streamedBefore, 1, 'a stream cannot be sent twice');
  });

  it('streams a request body whole, chunked; sends a string or Buffer with its Content-Length; a failing body stream aborts the request', async () => {
    const chunks = Array.from({ length: 40 }, (_, index) => Buffer.alloc(50_000, index));
    const source = Readable.from(
      (async function* () {
        for (const chunk of chunks) {
          yield chunk;
          await new Promise((resolve) => setImmediate(resolve));
        }
      })(),
    );
    const response = await transport.send('PUT', 'digest', { headers: {}, body: source });
    const whole = Buffer.concat(chunks);
    assert.equal(response.text, `${whole.length} ${createHash('sha256').update(whole).digest('hex')} chunked`);
    for (const body of [Buffer.from('sized body'), 'sized text ü']) {
      const sized = await transport.send('PUT', 'digest', { headers: {}, body });
      assert.equal(sized.text, `${Buffer.byteLength(body)} ${createHash('sha256').update(body).digest('hex')} undefined`);
      assert.equal(seen.at(-1)?.headers['content-length'], String(Buffer.byteLength(body)));
    }
    const failing = Readable.from(
      (async function* () {
        yield Buffer.from('part');
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('disk read failed');
      })(),
    );
    await assert.rejects(transport.send('PUT', 'digest', { headers: {}, body: failing }), /disk read failed/);
  });

  it('cuts an answer that stalls between body chunks, or never comes, after the inactivity timeout', async () => {
    const started = Date.now();
    const stalled = await transport.raw('GET', 'stall', { headers: {} });
    assert.equal(stalled.statusCode, 200);
    await assert.rejects(readText(stalled.body), /inactivity timeout/);
    await assert.rejects(transport.send('GET', 'no-answer', { headers: {} }), (error: unknown) => error instanceof TransportError && /inactivity timeout.*ETIMEDOUT/.test(error.message));
    assert.ok(Date.now() - started < 30_000, 'cut by the inactivity timeout');
  });
});

describe('runner HTTP transport over TLS', () => {
  let dir: string;
  let server: Server;
  let url: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-tls-'));
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    server = createHttpsServer({ key: await readFile(key), cert: await readFile(cert) }, (request, response) => response.writeHead(200).end(`tls ${request.url}`));
    url = await listen(server, 'https');
  });
  after(async () => stop(server));

  it('trusts a server certificate through tls-ca-file, and not without it', async () => {
    const trusting = new Transport({ url, userAgent: 'test', tlsCaFile: path.join(dir, 'cert.pem') });
    assert.equal((await trusting.send('GET', 'x', { headers: {} })).text, 'tls /api/v4/x');
    await trusting.close();
    const plain = new Transport({ url, userAgent: 'test' });
    await assert.rejects(plain.send('GET', 'x', { headers: {} }), (error: unknown) => error instanceof TransportError && /self.signed/i.test(error.message));
    await plain.close();
    assert.throws(() => new Transport({ url, userAgent: 'test', tlsCaFile: path.join(dir, 'missing.pem') }), /cannot set up TLS: .*ENOENT/);
  });

  // undici's own default would be 10 s: the test's bound tells them apart.
  it('gives up on a TLS handshake that never completes after the connect timeout', { timeout: 30_000 }, async () => {
    const silent = createNetServer((socket) => socket.resume().on('error', () => undefined));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const transport = new Transport({ url: silentUrl, userAgent: 'test', tlsCaFile: path.join(dir, 'cert.pem'), connectTimeoutMs: 200 });
    try {
      await assert.rejects(transport.send('GET', 'x', { headers: {} }), (error: unknown) => error instanceof TransportError && /connect timeout \(0\.2 s\).*ETIMEDOUT/.test(error.message));
    } finally {
      await transport.close();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
