import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/shared/logger.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

describe('request logs', () => {
  const lines: string[] = [];
  let gantry: TestCoordinator;

  before(async () => {
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
    gantry = await startTestCoordinator({ extra: { logger } });
  });
  after(() => gantry.close());

  it('never show a credential, in headers or in the query string', async () => {
    const basic = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;
    const viaQuery = await gantry.api('GET', `/user?per_page=5&private_token=${ROOT_TOKEN}&job_token=${ROOT_TOKEN}`, { token: null });
    assert.equal(viaQuery.status, 200);
    await gantry.api('GET', '/user', { headers: { authorization: basic } });
    const logged = lines.join('');
    assert.ok(logged.includes('"url":"/api/v4/user?per_page=5&private_token=[MASKED]&job_token=[MASKED]"'), logged);
    assert.ok(!logged.includes(ROOT_TOKEN), 'a token reached the log');
  });
});
