import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { DEPLOYMENT_MERGE_REQUESTS_TASK, DeploymentMergeRequestLinks } from '../../src/coordinator/services/ci/deployment-merge-requests.ts';
import { GitRepositoryManager } from '../../src/storage/git/index.ts';
import { environmentSlug } from '../../src/ci/slug.ts';
import type { DeploymentRecord } from '../../src/storage/types-environments.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { moveJob, seedPipeline } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator } from '../helpers/coordinator.ts';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

/**
 * GitLab's deployment links: a deployment that succeeds (its job moved by processing) records a
 * task that links the merged requests it shipped; the merge request lists filter on them
 * (`environment`, `deployed_before`, `deployed_after`).
 */
describe('merge requests linked to deployments', () => {
  let fx: MergeRequestFixture;
  const stores = () => fx.gantry.coordinator.context.stores;
  const ids: Record<string, number> = {};
  const deployments: Record<string, DeploymentRecord> = {};

  async function mergedRequest(name: string, target: string, body: Record<string, unknown> = {}): Promise<{ iid: number; mergeCommit: string; squashCommit: string | null }> {
    await fx.branch(name);
    const opened = await fx.open({ source_branch: name, target_branch: target, title: `Ship ${name}` });
    const merged = await fx.gantry.api('PUT', `/projects/${fx.project.id}/merge_requests/${String(opened.iid)}/merge`, { body });
    assert.equal(merged.status, 200, merged.text);
    ids[name] = Number(merged.json.id);
    return { iid: Number(merged.json.iid), mergeCommit: String(merged.json.merge_commit_sha), squashCommit: (merged.json.squash_commit_sha as string | null) ?? null };
  }

  /** A pipeline whose one job deploys `sha` of main to `environment`; the job runs and succeeds, then the link task runs. */
  async function deploy(environmentName: string, sha: string): Promise<DeploymentRecord> {
    const { jobs } = await seedPipeline(fx.gantry.coordinator, { projectId: fx.project.id, sha, jobs: [{ name: 'ship', stage: 'deploy', environment: environmentName }] });
    const now = new Date().toISOString();
    const environment = await stores().environments.findOrCreate({
      project_id: fx.project.id, name: environmentName, slug: environmentSlug(environmentName), external_url: null, state: 'available', tier: 'other', created_at: now, updated_at: now,
    });
    assert.ok(environment);
    const created = await stores().deployments.create({
      project_id: fx.project.id, environment_id: environment.id, job_id: jobs.ship!.id, ref: 'main', tag: false, sha, user_id: null, status: 'created',
      on_stop: null, created_at: now, updated_at: now, finished_at: null,
    });
    await moveJob(fx.gantry.coordinator, jobs.ship!, 'running');
    await moveJob(fx.gantry.coordinator, jobs.ship!, 'success');
    const pending = () => fx.gantry.coordinator.context.db.selectFrom('tasks').select('id').where('kind', '=', DEPLOYMENT_MERGE_REQUESTS_TASK).execute();
    await waitUntil(async () => (await pending()).length === 0, 'the deployment link task to run', { timeoutMs: 30_000 });
    const deployment = await stores().deployments.findById(created.id);
    assert.equal(deployment?.status, 'success');
    return deployment;
  }

  const linked = async (deployment: DeploymentRecord) => stores().deployments.linkedMergeRequestIds(deployment.id);

  before(async () => {
    fx = await startMergeRequestFixture(await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } }));
    const first = await mergedRequest('one', 'main');
    deployments.production1 = await deploy('production', first.mergeCommit);
    const second = await mergedRequest('two', 'main', { squash: true });
    assert.ok(second.squashCommit);
    deployments.canary = await deploy('canary', second.squashCommit);
    await mergedRequest('side', 'one');
    const third = await mergedRequest('three', 'main');
    deployments.production2 = await deploy('production', third.mergeCommit);
    deployments.review = await deploy('review/three', third.mergeCommit);
    deployments.staging = await deploy('staging', third.mergeCommit);
  });
  after(() => fx.close());

  it('links a first deployment to the requests merged into its branch up to its sha', async () => {
    assert.deepEqual(await linked(deployments.production1!), [ids.one]);
    assert.deepEqual(await linked(deployments.staging!), [ids.one, ids.two, ids.three], 'not the request merged into another branch');
    assert.deepEqual(await linked(deployments.canary!), [ids.one, ids.two], 'a squash commit counts as the request\'s');
  });

  it('links a later deployment to the requests merged since the previous successful one; review apps link nothing', async () => {
    assert.deepEqual(await linked(deployments.production2!), [ids.two, ids.three]);
    assert.deepEqual(await linked(deployments.review!), []);
  });

  it('links again idempotently, and walks at most the commit cap', async () => {
    const { stores: all, repositories } = fx.gantry.coordinator.context;
    const links = (commitLimit?: number) => new DeploymentMergeRequestLinks({ deployments: all.deployments, environments: all.environments, repositories, commitLimit });
    assert.equal(await links().link(deployments.production2!), 0);
    assert.deepEqual(await linked(deployments.production2!), [ids.two, ids.three]);
    await fx.gantry.coordinator.context.db.deleteFrom('deployment_merge_requests').where('deployment_id', '=', deployments.staging!.id).execute();
    assert.equal(await links(1).link(deployments.staging!), 1, 'only the newest commit: the third merge');
    assert.deepEqual(await linked(deployments.staging!), [ids.three]);
    assert.equal(await links().link(deployments.staging!), 2);
  });

  it('links nothing, and does not fail, for a project whose repository is gone', async () => {
    const { stores: all, repositories } = fx.gantry.coordinator.context;
    const links = new DeploymentMergeRequestLinks({ deployments: all.deployments, environments: all.environments, repositories });
    const created = await fx.gantry.api('POST', '/projects', { body: { name: 'no-repository' } });
    assert.equal(created.status, 201, created.text);
    const projectId = Number(created.json.id);
    assert.ok(repositories instanceof GitRepositoryManager);
    await rm(repositories.repositoryPath(projectId), { recursive: true });
    assert.equal(await repositories.exists(projectId), false);
    const now = new Date().toISOString();
    const environment = await all.environments.findOrCreate({
      project_id: projectId, name: 'production', slug: environmentSlug('production'), external_url: null, state: 'available', tier: 'production', created_at: now, updated_at: now,
    });
    assert.ok(environment);
    const orphan = await all.deployments.create({
      project_id: projectId, environment_id: environment.id, job_id: null, ref: 'main', tag: false, sha: deployments.production2!.sha, user_id: null, status: 'success',
      on_stop: null, created_at: now, updated_at: now, finished_at: now,
    });
    assert.equal(await links.link(orphan), 0);
    assert.deepEqual(await linked(orphan), []);
  });

  it('filters the project, group and global lists by environment and deployment finish times', async () => {
    const iidsOf = async (path: string, token?: string) => {
      const response = await fx.gantry.api('GET', path, { token });
      assert.equal(response.status, 200, response.text);
      return response.list.map((request) => request.iid);
    };
    const project = `/projects/${fx.project.id}/merge_requests`;
    const firstFinish = deployments.production1!.finished_at!;
    const secondFinish = deployments.production2!.finished_at!;
    assert.ok(firstFinish < secondFinish);
    assert.deepEqual(await iidsOf(`${project}?environment=production`), [4, 2, 1]);
    assert.deepEqual(await iidsOf(`${project}?environment=production&deployed_after=${encodeURIComponent(firstFinish)}`), [4, 2]);
    assert.deepEqual(await iidsOf(`${project}?environment=production&deployed_before=${encodeURIComponent(secondFinish)}`), [1]);
    assert.deepEqual(await iidsOf(`${project}?deployed_before=${encodeURIComponent(firstFinish)}`), [], 'strictly before');
    assert.deepEqual(await iidsOf(`${project}?deployed_after=${encodeURIComponent(firstFinish)}&order_by=title&sort=asc`), [1, 4, 2], 'any environment');
    assert.deepEqual(await iidsOf(`${project}?environment=review/three`), []);
    assert.deepEqual(await iidsOf(`${project}?environment=nowhere`), []);
    assert.deepEqual(await iidsOf(`${project}?environment=canary`, fx.guest.token), [2, 1]);
    assert.deepEqual(await iidsOf(`/groups/${fx.group.id}/merge_requests?environment=production&deployed_after=${encodeURIComponent(firstFinish)}`), [4, 2]);
    assert.deepEqual(await iidsOf('/merge_requests?scope=all&environment=canary'), [2, 1]);
    assert.deepEqual(await iidsOf('/merge_requests?scope=all&environment=canary', fx.stranger.token), [], 'a private project stays hidden');
  });

  it('answers 400 for a datetime grape would refuse', async () => {
    for (const name of ['deployed_before', 'deployed_after']) {
      const response = await fx.gantry.api('GET', `/projects/${fx.project.id}/merge_requests?${name}=yesterday-ish`);
      assert.equal(response.status, 400, response.text);
      assert.deepEqual(response.json, { error: `${name} is invalid` });
    }
  });
});
