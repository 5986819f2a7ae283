import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { execa } from '#deps/execa';
import type { TestCoordinator } from './coordinator.ts';

/**
 * Runs a python-gitlab driver (Debian's python3-gitlab, installed by scripts/test-setup.sh) from
 * test/fixtures/python-gitlab/ against `gantry`, listening on a port of its own, as root; answers
 * the one JSON object the script prints of what the client saw. A failing script fails here.
 * `extra` arguments follow the URL and the token.
 */
export async function drivePythonGitlab(gantry: TestCoordinator, script: string, extra: string[] = []): Promise<Record<string, unknown>> {
  await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = gantry.coordinator.app.server.address() as AddressInfo;
  const file = path.join(import.meta.dirname, '../fixtures/python-gitlab', script);
  const run = await execa('/usr/bin/python3', [file, `http://127.0.0.1:${port}`, gantry.rootToken, ...extra], { reject: false, timeout: 300_000 });
  assert.equal(run.exitCode, 0, run.stderr);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}
