import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OutboundFailure } from '../../src/coordinator/services/outbound/outbound-http.ts';
import { sendOutboundLines } from '../../src/coordinator/services/outbound/outbound-tcp.ts';
import { waitUntil, within } from '../helpers/bounded.ts';

async function failure(promise: Promise<unknown>): Promise<OutboundFailure> {
  const error = await within(promise, 10_000, 'the attempt').then(
    () => assert.fail('the lines were sent'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof OutboundFailure, String(error));
  return error;
}

describe('outbound TCP lines (irker): the outbound rules', () => {
  let server: Server;
  let port: number;
  let connections = 0;
  const received: string[] = [];

  before(async () => {
    server = createServer((socket) => {
      connections += 1;
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      socket.on('end', () => received.push(text));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => server.close());

  it('refuses a loopback address and a name resolving to one without connecting, unless local requests are allowed', async () => {
    const literal = await failure(sendOutboundLines({ host: '127.0.0.1', port, lines: ['{}'], allowLocal: false }));
    assert.equal(literal.kind, 'refused-address');
    const name = await failure(sendOutboundLines({ host: 'localhost', port, lines: ['{}'], allowLocal: false }));
    assert.equal(name.kind, 'refused-address');
    assert.equal(connections, 0, 'no connection was made');
    await within(sendOutboundLines({ host: '127.0.0.1', port, lines: ['{"to":["irc://x/#a"],"privmsg":"one"}', '{"privmsg":"two"}'], allowLocal: true }), 10_000, 'the lines');
    // The daemon sees the end of the connection after the client's finish: wait for it.
    await waitUntil(() => received.length === 1, 'the daemon to read the lines');
    assert.deepEqual(received, ['{"to":["irc://x/#a"],"privmsg":"one"}\n{"privmsg":"two"}\n']);
  });

  it('reports a closed port and an invalid port as failures naming the host only', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const free = (probe.address() as AddressInfo).port;
        probe.close(() => resolve(free));
      });
    });
    const refused = await failure(sendOutboundLines({ host: '127.0.0.1', port: closed, lines: ['x'], allowLocal: true }));
    assert.equal(refused.kind, 'network');
    assert.equal(refused.message, `127.0.0.1:${closed}: ECONNREFUSED`);
    assert.equal((await failure(sendOutboundLines({ host: '127.0.0.1', port: 70_000, lines: ['x'], allowLocal: true }))).kind, 'invalid-url');
  });
});
