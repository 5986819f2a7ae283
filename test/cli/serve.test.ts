import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { withinOrKill } from '../helpers/bounded.ts';
import { gitProcessesIn, startDownload, waitFor, within } from '../helpers/stalled-requests.ts';

const BIN = path.resolve(import.meta.dirname, '../../bin/coordinator');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A coordinator that has not exited this long after SIGTERM (or after refusing its options) never will. */
const EXIT_BOUND_MS = 60_000;

/** Starts `coordinator serve`, waits until it answers, stops it with SIGTERM; returns stdout and the exit code. */
async function serveOnce(args: string[], env: Record<string, string>, port: number, token: string) {
  const child = spawn(BIN, ['serve', ...args], { env: { ...process.env, ...env, GANTRY_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // serve prints where it listens once it does; a loaded machine may take a while to get there.
  const deadline = Date.now() + 60_000;
  while (!stdout.includes('Listening on ')) {
    assert.ok(Date.now() < deadline, `coordinator serve did not listen within 60 s; stdout: ${stdout}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const response = await fetch(`http://127.0.0.1:${port}/api/v4/version`, { headers: { 'PRIVATE-TOKEN': token } });
  const version: unknown = await response.json();
  child.kill('SIGTERM');
  return { stdout, version, code: await withinOrKill(child, exited, EXIT_BOUND_MS, 'coordinator serve exiting after SIGTERM') };
}

describe('coordinator serve', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('never prints a root token the operator chose, and shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const first = await serveOnce(['--port', String(port), '--data-dir', dataDir], { GANTRY_ROOT_TOKEN: 'first-token' }, port, 'first-token');
    assert.doesNotMatch(first.stdout, /first-token/);
    assert.match(first.stdout, /Created administrator "root" with the personal token given in GANTRY_ROOT_TOKEN/);
    assert.equal(first.code, 0);
    assert.equal((first.version as { revision?: string }).revision !== undefined, true);

    const second = await serveOnce(['--port', String(port), '--data-dir', dataDir], { GANTRY_ROOT_TOKEN: 'other-token' }, port, 'first-token');
    assert.doesNotMatch(second.stdout, /token/i);
    assert.equal(second.code, 0);
    assert.ok(second.version, 'the original token still works after a restart');
  });

  it('prints the root token it made, once, and that token works', async () => {
    const port = await freePort();
    const madeDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-made-'));
    try {
      const environment = { ...process.env };
      delete environment.GANTRY_ROOT_TOKEN;
      const child = spawn(BIN, ['serve', '--port', String(port), '--data-dir', madeDir], { env: { ...environment, GANTRY_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let stdout = '';
      const token = await withinOrKill(child, new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const made = /Personal token \(shown once\): (\S+)/.exec(stdout)?.[1];
          if (made) resolve(made);
        });
        child.on('exit', () => reject(new Error(`serve exited before printing a token: ${stdout}`)));
      }), EXIT_BOUND_MS, 'coordinator serve printing the token it made');
      const deadline = Date.now() + 60_000;
      while (!stdout.includes('Listening on ')) {
        assert.ok(Date.now() < deadline, `coordinator serve did not listen within 60 s; stdout: ${stdout}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const { status } = await fetch(`http://127.0.0.1:${port}/api/v4/user`, { headers: { 'PRIVATE-TOKEN': token } });
      assert.equal(status, 200, 'the printed token signs root in');
      child.kill('SIGTERM');
      assert.equal(await withinOrKill(child, exited, EXIT_BOUND_MS, 'coordinator serve exiting after SIGTERM'), 0);
    } finally {
      rmSync(madeDir, { recursive: true, force: true });
    }
  });

  it('with --port 0 picks a free port first, so clone URLs carry the port it listens on', async () => {
    const portDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-port0-'));
    try {
      const child = spawn(BIN, ['serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', portDir], {
        env: { ...process.env, GANTRY_ROOT_TOKEN: 'port0-token', GANTRY_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let stdout = '';
      const port = await withinOrKill(child, new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          const listening = /Listening on 127\.0\.0\.1:(\d+); external URL http:\/\/localhost:(\d+)/.exec(stdout);
          if (listening) {
            assert.equal(listening[1], listening[2]);
            resolve(Number(listening[1]));
          }
        });
        child.on('exit', () => reject(new Error(`serve exited early: ${stdout}`)));
      }), EXIT_BOUND_MS, 'coordinator serve printing the port it listens on');
      assert.notEqual(port, 0);
      const response = await fetch(`http://127.0.0.1:${port}/api/v4/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'port0-token', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'demo' }),
      });
      assert.equal(response.status, 201);
      assert.equal(((await response.json()) as { http_url_to_repo: string }).http_url_to_repo, `http://localhost:${port}/root/demo.git`);
      child.kill('SIGTERM');
      assert.equal(await withinOrKill(child, exited, EXIT_BOUND_MS, 'coordinator serve exiting after SIGTERM'), 0);
    } finally {
      rmSync(portDir, { recursive: true, force: true });
    }
  });

  it('reads port and data dir from a config file and the environment', async () => {
    const port = await freePort();
    const otherDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-config-'));
    const config = path.join(otherDir, 'config.toml');
    writeFileSync(config, `[coordinator]\nport = ${port}\ndata_dir = "${otherDir}"\n`);
    const run = await serveOnce(['--config', config], { GANTRY_ROOT_TOKEN: 'config-token' }, port, 'config-token');
    assert.equal(run.code, 0);
    assert.ok(run.version);
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('takes request body limits from the config file', async () => {
    const port = await freePort();
    const otherDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-limits-'));
    const config = path.join(otherDir, 'config.toml');
    writeFileSync(config, `[coordinator]\nport = ${port}\ndata_dir = "${otherDir}"\nbody_limit = 2048\n`);
    const child = spawn(BIN, ['serve', '--config', config], { env: { ...process.env, GANTRY_ROOT_TOKEN: 'limit-token', GANTRY_LOG_LEVEL: 'warn' }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const post = (size: number) =>
      fetch(`http://127.0.0.1:${port}/api/v4/projects`, {
        method: 'POST',
        headers: { 'PRIVATE-TOKEN': 'limit-token', 'content-type': 'application/json' },
        body: JSON.stringify({ name: `limits-${size}`, description: 'x'.repeat(size) }),
      });
    try {
      // Wait for the listener (up to a minute: a loaded machine starts slowly).
      for (let attempt = 0; attempt < 600; attempt++) {
        const up = await fetch(`http://127.0.0.1:${port}/api/v4/version`).then(
          () => true,
          () => false,
        );
        if (up) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal((await post(100)).status, 201);
      assert.equal((await post(4096)).status, 413);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await withinOrKill(child, exited, EXIT_BOUND_MS, 'coordinator serve exiting after SIGTERM'), 0);
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('refuses a body limit that is not a positive number of bytes', async () => {
    const otherDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-badlimit-'));
    const config = path.join(otherDir, 'config.toml');
    writeFileSync(config, `[coordinator]\ndata_dir = "${otherDir}"\nbody_limit = 0\n`);
    const child = spawn(BIN, ['serve', '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await withinOrKill(child, new Promise<number | null>((resolve) => child.on('exit', (exit) => resolve(exit))), EXIT_BOUND_MS, 'coordinator serve refusing its options');
    assert.equal(code, 1);
    assert.match(stderr, /coordinator\.body_limit must be a whole number of bytes above 0/);
    rmSync(otherDir, { recursive: true, force: true });
  });
  it('refuses instance timings whose stale-after spans fewer than two heartbeats, with one line', async () => {
    const otherDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-badtiming-'));
    const config = path.join(otherDir, 'config.toml');
    writeFileSync(config, `[coordinator]\ndata_dir = "${otherDir}"\ninstance_heartbeat_interval_ms = 1000\ninstance_stale_after_ms = 1500\n`);
    const child = spawn(BIN, ['serve', '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await withinOrKill(child, new Promise<number | null>((resolve) => child.on('exit', (exit) => resolve(exit))), EXIT_BOUND_MS, 'coordinator serve refusing its options');
    assert.equal(code, 1);
    assert.equal(stderr, `coordinator: ${config}: coordinator.instance_stale_after_ms (1500) must be at least twice coordinator.instance_heartbeat_interval_ms (1000)\n`);
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('holds idle job requests as long as the config file says', async () => {
    const port = await freePort();
    const otherDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-longpoll-'));
    const config = path.join(otherDir, 'config.toml');
    writeFileSync(config, `[coordinator]\nport = ${port}\ndata_dir = "${otherDir}"\njob_request_long_poll_seconds = 1\n`);
    const child = spawn(BIN, ['serve', '--config', config], { env: { ...process.env, GANTRY_ROOT_TOKEN: 'poll-token', GANTRY_LOG_LEVEL: 'warn' }, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}/api/v4`;
    const json = { 'content-type': 'application/json' };
    try {
      let settings: Response | undefined;
      for (let attempt = 0; attempt < 600 && settings === undefined; attempt++) {
        settings = await fetch(`${base}/application/settings`, { headers: { 'PRIVATE-TOKEN': 'poll-token' } }).catch(() => undefined);
        if (settings === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const registrationToken = String(((await settings!.json()) as { runners_registration_token: string }).runners_registration_token);
      const registered = await fetch(`${base}/runners`, { method: 'POST', headers: json, body: JSON.stringify({ token: registrationToken }) });
      const token = String(((await registered.json()) as { token: string }).token);
      const first = await fetch(`${base}/jobs/request`, { method: 'POST', headers: json, body: JSON.stringify({ token }) });
      assert.equal(first.status, 204);
      const lastUpdate = first.headers.get('x-gitlab-last-update');
      assert.ok(lastUpdate);
      const started = Date.now();
      const held = await fetch(`${base}/jobs/request`, { method: 'POST', headers: json, body: JSON.stringify({ token, last_update: lastUpdate }) });
      const waited = Date.now() - started;
      assert.equal(held.status, 204);
      // Held for the configured second, not the default 50.
      assert.ok(waited >= 900 && waited < 10_000, `held ${waited} ms`);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await withinOrKill(child, exited, EXIT_BOUND_MS, 'coordinator serve exiting after SIGTERM'), 0);
    rmSync(otherDir, { recursive: true, force: true });
  });

  it('refuses a long poll beyond 540 seconds with one clear line', async () => {
    const child = spawn(BIN, ['serve', '--job-request-long-poll', '600'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await withinOrKill(child, new Promise<number | null>((resolve) => child.on('exit', (exit) => resolve(exit))), EXIT_BOUND_MS, 'coordinator serve refusing its options');
    assert.equal(code, 1);
    assert.equal(stderr, 'coordinator: invalid job request long poll: 600 (whole seconds from 0 to 540)\n');
  });

  it('exits on SIGTERM within its bound while a client stalls a repository archive, and git stops with it', async () => {
    const port = await freePort();
    const otherDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-stall-'));
    const config = path.join(otherDir, 'config.toml');
    writeFileSync(config, `[coordinator]\nport = ${port}\ndata_dir = "${otherDir}"\nshutdown_grace_ms = 1000\n`);
    const child = spawn(BIN, ['serve', '--config', config], { env: { ...process.env, GANTRY_ROOT_TOKEN: 'stall-token', GANTRY_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
    // Its warnings say what held a close up (closeWithinBound), should it ever be slow.
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The exit code: 0 once closed, null when a signal ended the process before.
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const base = `http://127.0.0.1:${port}/api/v4`;
    const headers = { 'PRIVATE-TOKEN': 'stall-token', 'content-type': 'application/json' };
    try {
      let created: Response | undefined;
      for (let attempt = 0; attempt < 600 && created === undefined; attempt++) {
        created = await fetch(`${base}/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'stalled', initialize_with_readme: true }) }).catch(() => undefined);
        if (created === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const project = (await created!.json()) as { id: number };
      // 16 MB that do not compress: their archive cannot all sit in socket buffers.
      const content = randomBytes(16 * 1024 * 1024).toString('base64');
      const commit = await fetch(`${base}/projects/${project.id}/repository/commits`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ branch: 'main', commit_message: 'noise', actions: [{ action: 'create', file_path: 'noise.bin', content, encoding: 'base64' }] }),
      });
      assert.equal(commit.status, 201, await commit.text());
      const gitDir = path.join(otherDir, 'repositories', `${project.id}.git`);
      const stalled = await startDownload(`${base}/projects/${project.id}/repository/archive.tar?sha=main`, { headers });
      assert.equal(stalled.status, 200);
      await waitFor(() => gitProcessesIn(gitDir).some((process) => process.includes('archive')), 'git archive to run');
      child.kill('SIGTERM');
      const code = await within(exited, 20_000, 'the coordinator exiting after SIGTERM').catch((error: Error) => assert.fail(`${error.message}; its output:\n${output}`));
      assert.equal(code, 0, output);
      await waitFor(() => !gitProcessesIn(gitDir).some((process) => process.includes('archive')), 'git archive to stop');
      await within(stalled.drain(), 20_000, 'the stalled connection closing');
    } finally {
      child.kill('SIGKILL');
      rmSync(otherDir, { recursive: true, force: true });
    }
  });

  it('refuses archive limits and a shutdown grace that are not positive whole numbers', async () => {
    const otherDir = mkdtempSync(path.join(tmpdir(), 'gantry-serve-badarchive-'));
    const config = path.join(otherDir, 'config.toml');
    writeFileSync(config, `[coordinator]\ndata_dir = "${otherDir}"\nartifact_archive_max_members = 0\n`);
    const child = spawn(BIN, ['serve', '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (exit) => resolve(exit)));
    assert.equal(code, 1);
    assert.match(stderr, /coordinator\.artifact_archive_max_members must be a whole number above 0/);
    rmSync(otherDir, { recursive: true, force: true });
  });
});
