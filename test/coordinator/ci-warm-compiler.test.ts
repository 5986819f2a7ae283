/**
 * `warmCompiler` (runner exec's head start on the first compile): it starts a compile worker
 * that the next compile uses, and it never throws, not even once the coordinator is closed.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ciServicesOf, createCoordinator } from '../../src/coordinator/app.ts';

describe('warmCompiler', () => {
  it('leaves a worker the next compile uses, and resolves after the coordinator has closed', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'gantry-warm-'));
    const rootToken = 'glpat-warm-compiler-test-token-0001';
    const coordinator = await createCoordinator({ dataDir, databaseUrl: ':memory:', rootToken, ci: { compile: { workers: 1 } } });
    try {
      const ci = ciServicesOf(coordinator);
      assert.equal(await ci.warmCompiler(), undefined);
      const lint = await coordinator.app.inject({
        method: 'POST', url: '/api/v4/ci/lint', headers: { 'private-token': rootToken }, payload: { content: 'build:\n  script: make\n' },
      });
      assert.equal(lint.statusCode, 200, lint.body);
      assert.equal(lint.json().status, 'valid');
      await coordinator.close();
      assert.equal(await ci.warmCompiler(), undefined);
    } finally {
      await coordinator.close().catch(() => undefined);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
