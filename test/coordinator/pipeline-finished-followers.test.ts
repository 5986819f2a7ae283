import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository } from './groups-fixtures.ts';

function pipelineMails(dataDir: string): string[] {
  const folder = path.join(dataDir, 'mail', 'new');
  try {
    return readdirSync(folder)
      .map((name) => readFileSync(path.join(folder, name), 'utf8'))
      .filter((text) => /^X-Gitlab-Pipeline-Id:/im.test(text));
  } catch {
    return [];
  }
}

describe('what follows a pipeline finish is recorded in the finishing transaction', () => {
  let gantry: TestCoordinator;

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
  });
  after(() => gantry.close());

  it('mails a failed pipeline although nothing ran after the commit (a coordinator dying there)', async () => {
    const group = await makeGroup(gantry, 'followers');
    const project = await makeProjectWithRepository(gantry, group.id, 'app', { withReadme: true });
    const saved = await gantry.api('PUT', `/projects/${project.id}/services/pipelines-email`, { body: { recipients: 'ci@example.com' } });
    assert.equal(saved.status, 200, saved.text);
    const commit = await gantry.api('GET', `/projects/${project.id}/repository/commits/main`);
    const sha = String(commit.json.id);
    const running = await gantry.api('POST', `/projects/${project.id}/statuses/${sha}`, { body: { state: 'running', name: 'test' } });
    assert.equal(running.status, 201, running.text);

    const { stores } = gantry.coordinator.context;
    const pipeline = (await stores.pipelines.latestFor(project.id, sha))!;
    const [job] = (await stores.jobs.list({ pipelineId: pipeline.id }, { offset: 0, limit: 1 })).items;
    const { pipelineProcessing } = ciServicesOf(gantry.coordinator);
    // Committed without `notify`: nothing that runs after the commit sees the failure.
    await stores.ciTransactions.run((ciStores) => pipelineProcessing.applyIn(ciStores, pipeline.id, { type: 'job-status', jobId: job!.id, status: 'failed' }));
    await waitUntil(() => pipelineMails(gantry.dataDir).length === 1, 'the pipeline email from the recorded task');
    assert.match(pipelineMails(gantry.dataDir)[0]!, /^X-Gitlab-Pipeline-Status: failed\r?$/m);
  });
});
