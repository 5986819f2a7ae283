/**
 * Kept outbound connections against what they must not weaken: DNS rebinding, receivers that
 * close kept connections, TLS verification, redirects, the time limit, and the pools' size.
 * Real sockets on this machine; names are answered through the client's `lookup` option.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { after, describe, it } from 'node:test';
import { sendHookRequest } from '../../src/coordinator/services/hooks/hook-request.ts';
import { KEPT_CONNECTIONS_MAX_IDLE, keptConnections } from '../../src/coordinator/services/outbound/kept-connections.ts';
import { isLocalAddress } from '../../src/coordinator/services/outbound/local-addresses.ts';
import { OutboundFailure, sendOutbound, type NameLookup, type OutboundRequest } from '../../src/coordinator/services/outbound/outbound-http.ts';
import type { HookRecord } from '../../src/storage/types-hooks.ts';
import { waitUntil, within } from '../helpers/bounded.ts';
import { selfSignedCertificate, trackedReceiver, type TrackedReceiver } from './outbound-receiver.ts';

const bounded = <T>(promise: Promise<T>, what: string): Promise<T> => within(promise, 10_000, what);

/** A lookup answering each call with the next of `answers` (the last one again when they run out), counting calls. */
function scriptedLookup(...answers: string[][]): NameLookup & { calls: number } {
  const lookup = Object.assign(
    (_hostname: string): Promise<LookupAddress[]> => {
      const answer = answers[Math.min(lookup.calls, answers.length - 1)] ?? [];
      lookup.calls += 1;
      return Promise.resolve(answer.map((address) => ({ address, family: isIP(address) })));
    },
    { calls: 0 },
  );
  return lookup;
}

async function failure(promise: Promise<unknown>): Promise<OutboundFailure> {
  const error = await promise.then(
    () => assert.fail('the request got an answer'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof OutboundFailure, String(error));
  return error;
}

const post = (url: string, extra: Partial<OutboundRequest> = {}): Promise<string> =>
  bounded(sendOutbound({ method: 'POST', url, body: '{}', allowLocal: true, ...extra }), `POST ${url}`).then((answer) => `${answer.status} ${answer.body}`);

function hookRecord(url: string, enableSslVerification: boolean): HookRecord {
  return {
    id: 1, kind: 'project', project_id: 1, group_id: null, url, name: '', description: '', token: null,
    enable_ssl_verification: enableSslVerification, push_events_branch_filter: null, branch_filter_strategy: 'all_branches',
    events: { push_events: true, tag_push_events: false, issues_events: false, confidential_issues_events: false, merge_requests_events: false, note_events: false, confidential_note_events: false, job_events: false, pipeline_events: false, wiki_page_events: false, deployment_events: false, releases_events: false },
    repository_update_events: false, subgroup_events: false, member_events: false,
    recent_failures: 0, backoff_count: 0, disabled_until: null, permanently_disabled: false, created_at: new Date(0).toISOString(),
  };
}

/** One delivery of a push payload to `url`, as the hooks' sender makes it, names answered by `lookup`. */
const deliver = (url: string, options: { allowLocal: boolean; lookup: NameLookup; verify?: boolean; timeoutMs?: number }) =>
  bounded(sendHookRequest({
    hook: hookRecord(url, options.verify ?? true), trigger: 'push_hooks', eventHeader: 'Push Hook', eventUuid: 'uuid', payload: { object_kind: 'push' },
    instanceUrl: 'http://gantry.test', allowLocal: options.allowLocal, timeoutMs: options.timeoutMs ?? 10_000,
    send: (request) => sendOutbound({ ...request, lookup: options.lookup }),
  }), `delivery to ${url}`);

describe('kept outbound connections', () => {
  const receivers: TrackedReceiver[] = [];
  const receiver = async (...args: Parameters<typeof trackedReceiver>): Promise<TrackedReceiver> => {
    const made = await trackedReceiver(...args);
    receivers.push(made);
    return made;
  };
  after(async () => {
    for (const made of receivers) await made.close();
  });

  it('opens a new connection when a name answers another address, and never sends to the old one', async () => {
    const first = await receiver({ host: '127.0.0.1' });
    const second = await receiver({ host: '127.0.0.2', port: first.port });
    const lookup = scriptedLookup(['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1']);
    const url = `http://rebinding.test:${first.port}/hook`;
    for (let index = 0; index < 3; index += 1) assert.equal(await post(url, { lookup }), '200 fine');
    assert.deepEqual(first.requests.map((request) => request.connection), [1, 1], 'the first and third on the kept connection to 127.0.0.1');
    assert.deepEqual(second.requests.map((request) => request.connection), [1]);
    assert.equal(lookup.calls, 3, 'the name is resolved for each request');
  });

  it('refuses a hook whose name turns to a loopback, private or link-local address, without using the kept connection', async () => {
    // A receiver on an address of this machine that is not local: what a public receiver is to the client.
    const outside = Object.values(networkInterfaces()).flat().find((entry) => entry !== undefined && !isLocalAddress(entry.address))?.address;
    assert.ok(outside, 'this machine has an address outside the local ranges (a public or documentation one) to receive on');
    const publicReceiver = await receiver({ host: outside });
    const loopback = await receiver({ host: '127.0.0.1', port: publicReceiver.port });
    const lookup = scriptedLookup([outside], ['127.0.0.1'], ['10.0.0.1'], ['169.254.169.254'], [outside, '127.0.0.1'], [outside]);
    const url = `http://hooks.example.test:${publicReceiver.port}/hook`;
    const answered = await deliver(url, { allowLocal: false, lookup });
    assert.deepEqual([answered.ok, answered.log.response_status], [true, '200']);
    for (const refused of ['127.0.0.1', '10.0.0.1', '169.254.169.254', `${outside} and 127.0.0.1`]) {
      const attempt = await deliver(url, { allowLocal: false, lookup });
      assert.deepEqual([attempt.ok, attempt.retryable, attempt.log.response_status], [false, false, 'internal error'], refused);
      assert.match(String(attempt.log.internal_error_message), /hooks\.example\.test resolves to a local address/, refused);
    }
    const again = await deliver(url, { allowLocal: false, lookup });
    assert.equal(again.ok, true);
    assert.deepEqual(publicReceiver.requests.map((request) => request.connection), [1, 1], 'only the allowed answers were sent, on the one kept connection');
    assert.deepEqual([loopback.connections, lookup.calls], [0, 6]);
  });

  it('sends a delivery again on a new connection when the receiver closed the kept one as it was reused', async () => {
    for (const drop of ['end', 'reset'] as const) {
      // The second request on each connection is dropped unanswered: a receiver that closed the connection as the request came.
      const dropping = await receiver({ host: '127.0.0.1', answer: (request, response) => (request.perConnection === 2 ? request.drop(drop) : response.end('fine')) });
      const url = `http://127.0.0.1:${dropping.port}/hook`;
      const lookup = scriptedLookup([]);
      const attempts = [await deliver(url, { allowLocal: true, lookup }), await deliver(url, { allowLocal: true, lookup })];
      assert.deepEqual(attempts.map((attempt) => [attempt.ok, attempt.log.response_status, attempt.log.internal_error_message]), [[true, '200', null], [true, '200', null]], drop);
      assert.deepEqual(dropping.requests.map((request) => [request.connection, request.perConnection]), [[1, 1], [1, 2], [2, 1]], drop);
    }
  });

  it('never lets a request that verifies TLS use a connection opened without verification; a self-signed receiver is refused', async () => {
    const certificate = selfSignedCertificate('localhost');
    const secure = await receiver({ host: '127.0.0.1', tls: certificate });
    const lookup = scriptedLookup(['127.0.0.1']);
    const url = `https://localhost:${secure.port}/hook`;
    const unverified = await deliver(url, { allowLocal: true, lookup, verify: false });
    assert.deepEqual([unverified.ok, unverified.log.response_status], [true, '200']);
    const verified = await deliver(url, { allowLocal: true, lookup, verify: true });
    assert.deepEqual([verified.ok, verified.log.response_status], [false, 'internal error']);
    assert.match(String(verified.log.internal_error_message), /^localhost:\d+: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/);
    const direct = await failure(bounded(sendOutbound({ method: 'POST', url, body: '{}', allowLocal: true, lookup, verifyTls: true }), 'a verified POST'));
    assert.equal(direct.kind, 'network');
    assert.equal((await deliver(url, { allowLocal: true, lookup, verify: false })).ok, true);
    assert.deepEqual(secure.requests.map((request) => request.connection), [1, 1], 'only the unverified requests were answered, on their one connection');
    assert.equal(secure.connections, 3, 'each verified request opened a connection of its own, refused in its handshake');
  });

  it('follows no redirect on a kept connection', async () => {
    const target = await receiver({ host: '127.0.0.1' });
    const redirecting = await receiver({
      host: '127.0.0.1',
      answer: (request, response) => (request.url === '/hook' && request.perConnection > 1 ? response.writeHead(302, { location: `http://127.0.0.1:${target.port}/elsewhere` }).end() : response.end('fine')),
    });
    const url = `http://127.0.0.1:${redirecting.port}/hook`;
    assert.equal(await post(url), '200 fine');
    assert.equal(await post(url), '302 ');
    assert.equal(await post(url, { method: 'GET' }), '302 ');
    assert.deepEqual(redirecting.requests.map((request) => [request.url, request.connection]), [['/hook', 1], ['/hook', 1], ['/hook', 1]]);
    assert.equal(target.connections, 0);
  });

  it('ends a request on a kept connection at its time limit, and the next one goes on a new connection', async () => {
    const stalling = await receiver({
      host: '127.0.0.1',
      answer: (request, response) => {
        // The second request gets nothing; the fourth, half an answer.
        if (request.index === 2) return;
        if (request.index === 4) response.writeHead(200, { 'content-length': '100' }).write('half');
        else response.end('fine');
      },
    });
    const url = `http://127.0.0.1:${stalling.port}/hook`;
    assert.equal(await post(url), '200 fine');
    const silent = await failure(bounded(sendOutbound({ method: 'POST', url, body: '{}', allowLocal: true, timeoutMs: 300 }), 'the silent answer'));
    assert.deepEqual([silent.kind, silent.message], ['timeout', `127.0.0.1:${stalling.port} did not answer within 300 ms`]);
    assert.equal(await post(url), '200 fine');
    const half = await failure(bounded(sendOutbound({ method: 'POST', url, body: '{}', allowLocal: true, timeoutMs: 300 }), 'the half answer'));
    assert.equal(half.kind, 'timeout');
    assert.equal(await post(url), '200 fine');
    assert.deepEqual(stalling.requests.map((request) => [request.connection, request.perConnection]), [[1, 1], [1, 2], [2, 1], [2, 2], [3, 1]]);
    const slowName = await failure(bounded(sendOutbound({ method: 'POST', url: 'http://slow-name.test/', allowLocal: true, timeoutMs: 300, lookup: () => new Promise(() => undefined) }), 'the unanswered lookup'));
    assert.deepEqual([slowName.kind, slowName.message], ['timeout', 'slow-name.test did not answer within 300 ms']);
  });

  it(`keeps at most ${KEPT_CONNECTIONS_MAX_IDLE} idle connections however many receivers, and closes idle ones`, async () => {
    const many = await receiver({ host: '127.0.0.1' });
    const lookup = scriptedLookup(['127.0.0.1']);
    const receiversCount = KEPT_CONNECTIONS_MAX_IDLE + 20;
    // Each name is a receiver of its own to the pool: one connection each, kept while idle.
    for (let index = 0; index < receiversCount; index += 1) assert.equal(await post(`http://receiver-${index}.test:${many.port}/hook`, { lookup }), '200 fine');
    assert.equal(many.connections, receiversCount);
    const pool = keptConnections(false, true, true);
    // A socket closed past the bound leaves the agent's list when its close event comes.
    const idle = Object.values(pool.freeSockets).flat().filter((socket) => socket !== undefined && !socket.destroyed).length;
    assert.ok(idle <= KEPT_CONNECTIONS_MAX_IDLE, `${idle} idle connections kept`);
    await waitUntil(() => many.open <= KEPT_CONNECTIONS_MAX_IDLE, 'the idle connections past the bound closed', { explain: () => `${many.open} open` });
    assert.equal(await post(`http://receiver-${receiversCount - 1}.test:${many.port}/hook`, { lookup }), '200 fine');
    assert.equal(many.connections, receiversCount, 'the newest receiver reused its kept connection');
    await waitUntil(() => many.open === 0, 'every idle connection closed by the client', { timeoutMs: 20_000, explain: () => `${many.open} open` });
    assert.equal(many.closedByPeer, receiversCount, 'the client, not the receiver, closed them');
  });
});
