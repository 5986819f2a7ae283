import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { downloadArtifacts, uploadArtifact } from '../../src/runner/http/job-api.ts';
import { registerRunner, requestJob, unregisterRunner, verifyRunner } from '../../src/runner/http/runner-api.ts';
import { apiBase, Transport } from '../../src/runner/http/transport.ts';
import { DependencyDownloadError } from '../../src/runner/job/session.ts';
import { runnerInfo, userAgent, VERSION } from '../../src/runner/version.ts';
import { FakeGitLab } from './fake-gitlab.ts';
import { payload } from './support.ts';

describe('runner HTTP client against a GitLab stand-in', () => {
  const gitlab = new FakeGitLab();
  let transport: Transport;
  before(async () => {
    await gitlab.start();
    transport = new Transport({ url: `${gitlab.url}/ci/`, userAgent: userAgent(), backoffMinMs: 1, backoffMaxMs: 5 });
  });
  after(async () => {
    await transport.close();
    await gitlab.stop();
  });

  it('derives the API base like gitlab-runner: trailing / and /ci dropped, http(s) only', () => {
    assert.equal(apiBase('https://gitlab.example.com/'), 'https://gitlab.example.com/api/v4/');
    assert.equal(apiBase('https://gitlab.example.com/ci'), 'https://gitlab.example.com/api/v4/');
    assert.equal(apiBase('https://example.com/prefix/gitlab/ci/'), 'https://example.com/prefix/gitlab/api/v4/');
    assert.throws(() => apiBase('ftp://example.com'), /http or https/);
  });

  it('version matches package.json', async () => {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    assert.equal(VERSION, pkg.version);
  });

  it('registers with the registration token, the tag list as a comma string and only network features at registration', async () => {
    const result = await registerRunner(transport, {
      registrationToken: 'regtok',
      description: 'my runner',
      tagList: ['a', 'b'],
      runUntagged: false,
      locked: true,
      active: true,
      maximumTimeout: 600,
      info: runnerInfo(),
    });
    assert.equal(result.kind, 'registered');
    const [sent] = gitlab.requestsTo('POST', /^\/api\/v4\/runners$/);
    assert.equal(sent.headers['content-type'], 'application/json');
    assert.equal(sent.headers.accept, 'application/json');
    assert.match(String(sent.headers['user-agent']), /^gantry-runner 0\.1\.0 \(.*; node v\d+.*; linux\/\w+\)$/);
    const body = JSON.parse(sent.body.toString()) as Record<string, unknown> & { info: { features: Record<string, boolean>; executor?: string } };
    assert.equal(body.token, 'regtok');
    assert.equal(body.tag_list, 'a,b');
    assert.equal(body.run_untagged, false);
    assert.equal(body.maximum_timeout, 600);
    assert.equal(body.info.executor, undefined);
    const trueFeatures = Object.entries(body.info.features).filter(([, on]) => on).map(([name]) => name).sort();
    assert.deepEqual(trueFeatures, ['cancelable', 'trace_checksum', 'trace_reset', 'trace_size']);
  });

  it('reports a wrong registration token as forbidden, and a non-JSON 201 as a failure', async () => {
    const wrong = await registerRunner(transport, { registrationToken: 'nope', runUntagged: true, locked: true, active: true, info: runnerInfo() });
    assert.equal(wrong.kind, 'forbidden');
    gitlab.intercept = (request) => (request.path === '/api/v4/runners' ? { status: 201, headers: { 'content-type': 'text/plain' }, body: '{"id":1,"token":"x"}' } : undefined);
    try {
      const plain = await registerRunner(transport, { registrationToken: 'regtok', runUntagged: true, locked: true, active: true, info: runnerInfo() });
      assert.deepEqual(plain, { kind: 'failed', status: -1, message: 'the answer is not application/json' });
    } finally {
      gitlab.intercept = null;
    }
  });

  it('verifies (200 alive, 403 removed) and unregisters with a JSON body on DELETE (204)', async () => {
    const token = [...gitlab.runnerTokens][0];
    assert.equal((await verifyRunner(transport, token)).kind, 'alive');
    assert.equal((await verifyRunner(transport, 'unknown-token')).kind, 'removed');
    assert.deepEqual(await unregisterRunner(transport, token), { ok: true, status: 204 });
    assert.deepEqual(await unregisterRunner(transport, token), { ok: false, status: 403 });
    const deleted = gitlab.requestsTo('DELETE', /^\/api\/v4\/runners$/)[0];
    assert.deepEqual(JSON.parse(deleted.body.toString()), { token });
  });

  it('requests jobs echoing X-GitLab-Last-Update, and decodes the payload', async () => {
    const token = 'runnertok-for-requests';
    gitlab.runnerTokens.add(token);
    gitlab.lastUpdate = 'lu-179533647';
    const info = runnerInfo({ name: 'shell', features: { variables: true, image: false, services: false, shared: true, session: false, terminal: false } }, 'bash');
    assert.deepEqual(await requestJob(transport, token, info), { kind: 'none' });
    const job = payload();
    gitlab.enqueue(job);
    const result = await requestJob(transport, token, info);
    assert.equal(result.kind, 'job');
    assert.equal(result.kind === 'job' && result.payload.id, job.id);
    const bodies = gitlab.requestsTo('POST', /jobs\/request/).slice(-2).map((request) => JSON.parse(request.body.toString()) as Record<string, unknown>);
    assert.equal(bodies[0].last_update, undefined);
    assert.equal(bodies[1].last_update, 'lu-179533647');
    assert.equal((bodies[1].info as { executor: string }).executor, 'shell');
    assert.equal((bodies[1].info as { features: { upload_multiple_artifacts: boolean } }).features.upload_multiple_artifacts, true);
    assert.deepEqual(await requestJob(transport, 'bad-token', info), { kind: 'forbidden' });
  });

  it('treats 409 and a non-JSON 201 as "try again", and a payload of the wrong shape as invalid', async () => {
    gitlab.runnerTokens.add('tok2');
    const info = runnerInfo();
    gitlab.intercept = () => ({ status: 409, headers: { 'content-type': 'application/json' }, body: '{"message":"409 Conflict"}' });
    assert.deepEqual(await requestJob(transport, 'tok2', info), { kind: 'failed', status: 409, message: '409 Conflict' });
    gitlab.intercept = () => ({ status: 201, headers: { 'content-type': 'text/html' }, body: '{}' });
    assert.equal((await requestJob(transport, 'tok2', info)).kind, 'failed');
    gitlab.intercept = () => ({ status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 5, token: 't5', steps: 'echo' }) });
    const invalid = await requestJob(transport, 'tok2', info);
    assert.deepEqual(invalid, { kind: 'invalid', id: 5, token: 't5', message: 'invalid job payload: job.steps must be an array' });
    gitlab.intercept = null;
  });

  it('decodes a minimal (v10-era) payload with zero values for what is missing', async () => {
    gitlab.runnerTokens.add('tok3');
    gitlab.intercept = () => ({
      status: 201,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ id: 300, token: 'jt', git_info: { sha: '12345678' }, variables: [{ key: 'GIT_STRATEGY', value: 'none' }], steps: [{ name: 'script', script: ['echo hi'] }], cache: [{ key: 'k', paths: ['a'] }] }),
    });
    const result = await requestJob(transport, 'tok3', runnerInfo());
    gitlab.intercept = null;
    assert.equal(result.kind, 'job');
    if (result.kind !== 'job') return;
    assert.equal(result.payload.features.trace_sections, false);
    assert.deepEqual(result.payload.cache, [{ key: 'k', untracked: false, paths: ['a'], policy: 'pull-push', when: 'on_success' }]);
    assert.deepEqual(result.payload.variables, [{ key: 'GIT_STRATEGY', value: 'none', public: false, masked: false }]);
    assert.equal(result.payload.image, null);
  });

  /** The next job request is answered with a job whose payload has `fields` in place of the usual ones. */
  const answerJobWith = (fields: Record<string, unknown>): void => {
    const job = payload();
    gitlab.intercept = () => ({ status: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...job, ...fields }) });
  };

  it("decodes image:pull_policy and services:pull_policy as GitLab sends them (a list, or null for none)", async () => {
    gitlab.runnerTokens.add('tok-pull');
    answerJobWith({
      image: { name: 'alpine:3', entrypoint: null, ports: [], executor_opts: {}, pull_policy: ['if-not-present', 'always'] },
      services: [
        { name: 'redis:7', entrypoint: null, ports: [], executor_opts: {}, pull_policy: ['never'], alias: null, command: null, variables: [] },
        { name: 'postgres:16', entrypoint: null, ports: [], executor_opts: {}, pull_policy: null, alias: null, command: null, variables: [] },
      ],
    });
    const result = await requestJob(transport, 'tok-pull', runnerInfo());
    gitlab.intercept = null;
    assert.equal(result.kind, 'job');
    if (result.kind !== 'job') return;
    assert.deepEqual(result.payload.image?.pull_policy, ['if-not-present', 'always']);
    assert.deepEqual(result.payload.services.map((service) => service.pull_policy), [['never'], undefined]);
  });

  it('keeps what GitLab sends as written for the job to expand: names, cache keys and a `$VARIABLE` cache policy', async () => {
    gitlab.runnerTokens.add('tok-written');
    answerJobWith({
      image: { name: '$IMAGE', entrypoint: null, ports: [] },
      cache: [{ key: 'deps-$TAG', untracked: false, paths: ['vendor/'], policy: '$POLICY', when: 'on_success' }],
    });
    const result = await requestJob(transport, 'tok-written', runnerInfo());
    gitlab.intercept = null;
    assert.equal(result.kind, 'job');
    if (result.kind !== 'job') return;
    assert.equal(result.payload.image?.name, '$IMAGE');
    assert.deepEqual(result.payload.cache, [{ key: 'deps-$TAG', untracked: false, paths: ['vendor/'], policy: '$POLICY', when: 'on_success' }]);
  });

  it('uploads an artifact as one streamed multipart part "file", chunked, with the query of the capture', async () => {
    const job = gitlab.enqueue(payload());
    job.state = 'running';
    const dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-upload-'));
    const file = path.join(dir, 'a.zip');
    await writeFile(file, Buffer.alloc(300_000, 7));
    const result = await uploadArtifact(transport, job.payload.id, job.payload.token, { file, fileName: 'myart.zip', artifactType: 'archive', artifactFormat: 'zip', expireIn: '1 day' });
    assert.deepEqual(result, { ok: true, status: 201, statusText: '201 Created' });
    const [stored] = job.artifacts;
    assert.equal(stored.fileName, 'myart.zip');
    assert.deepEqual(stored.content, Buffer.alloc(300_000, 7));
    assert.equal(stored.headers['transfer-encoding'], 'chunked');
    assert.equal(stored.headers['content-length'], undefined);
    assert.equal(stored.headers['job-token'], job.payload.token);
    const sent = gitlab.requestsTo('POST', /artifacts$/).at(-1);
    assert.match(sent?.url ?? '', /\?artifact_format=zip&artifact_type=archive&expire_in=1\+day$/);
  });

  it('retries an upload answered 503, but not one answered 413', async () => {
    const job = gitlab.enqueue(payload());
    job.state = 'running';
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'gantry-upload-')), 'a.zip');
    await writeFile(file, 'zip');
    let calls = 0;
    gitlab.intercept = (request) => (request.method === 'POST' && request.path.endsWith('/artifacts') && ++calls <= 2 ? { status: 503 } : undefined);
    const ok = await uploadArtifact(transport, job.payload.id, job.payload.token, { file, fileName: 'a.zip', artifactType: 'archive', artifactFormat: 'zip' }, { retryDelayMs: 1 });
    assert.equal(ok.ok, true);
    assert.equal(calls, 3);
    calls = 0;
    gitlab.intercept = (request) => (request.method === 'POST' && request.path.endsWith('/artifacts') ? (calls++, { status: 413 }) : undefined);
    const tooLarge = await uploadArtifact(transport, job.payload.id, job.payload.token, { file, fileName: 'a.zip', artifactType: 'archive', artifactFormat: 'zip' }, { retryDelayMs: 1 });
    gitlab.intercept = null;
    assert.deepEqual(tooLarge, { ok: false, status: 413, statusText: '413 Request Entity Too Large' });
    assert.equal(calls, 1);
  });

  it("downloads a dependency's artifacts with its own token, direct_download on the first try; 404 means missing", async () => {
    gitlab.artifactsForDownload.set(1200, { token: 'dep-token', zip: Buffer.from('PK-zip-bytes') });
    const destination = path.join(await mkdtemp(path.join(os.tmpdir(), 'gantry-dl-')), 'dep.zip');
    await downloadArtifacts(transport, { id: 1200, name: 'build', token: 'dep-token', artifacts_file: { filename: 'artifacts.zip', size: 12 } }, destination, { retryDelayMs: 1 });
    assert.equal(await readFile(destination, 'utf8'), 'PK-zip-bytes');
    const sent = gitlab.requestsTo('GET', /\/jobs\/1200\/artifacts$/).at(-1);
    assert.equal(sent?.url, '/api/v4/jobs/1200/artifacts?direct_download=true');
    assert.equal(sent?.headers['job-token'], 'dep-token');
    assert.equal(sent?.headers['user-agent'], undefined);
    await assert.rejects(
      downloadArtifacts(transport, { id: 1201, name: 'gone', token: 't' }, destination, { retryDelayMs: 1 }),
      (error: unknown) => error instanceof DependencyDownloadError && error.missing,
    );
  });

  it('retries a download that failed with 500, the retries without direct_download', async () => {
    gitlab.artifactsForDownload.set(1300, { token: 'dep', zip: Buffer.from('zip') });
    let calls = 0;
    gitlab.intercept = (request) => (request.path === '/api/v4/jobs/1300/artifacts' && ++calls === 1 ? { status: 500 } : undefined);
    const destination = path.join(await mkdtemp(path.join(os.tmpdir(), 'gantry-dl-')), 'dep.zip');
    await downloadArtifacts(transport, { id: 1300, name: 'b', token: 'dep' }, destination, { retryDelayMs: 1 });
    gitlab.intercept = null;
    assert.equal(await readFile(destination, 'utf8'), 'zip');
    const urls = gitlab.requestsTo('GET', /\/jobs\/1300\/artifacts$/).map((request) => request.url);
    assert.deepEqual(urls, ['/api/v4/jobs/1300/artifacts?direct_download=true', '/api/v4/jobs/1300/artifacts']);
  });

  it('waits until RateLimit-ResetTime on 429 and retries', async () => {
    let calls = 0;
    gitlab.intercept = (request) =>
      request.path === '/api/v4/runners/verify' && ++calls === 1 ? { status: 429, headers: { 'ratelimit-resettime': new Date(Date.now() + 300).toUTCString() } } : undefined;
    gitlab.runnerTokens.add('tok-429');
    const result = await verifyRunner(transport, 'tok-429');
    gitlab.intercept = null;
    assert.equal(result.kind, 'alive');
    assert.equal(calls, 2);
  });

  it('fails with a clear error when the coordinator cannot be reached', async () => {
    const dead = new Transport({ url: 'http://127.0.0.1:9', userAgent: 'x' });
    await assert.rejects(verifyRunner(dead, 't'), /ECONNREFUSED/);
    await dead.close();
  });
});
