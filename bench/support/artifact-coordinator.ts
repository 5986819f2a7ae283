/**
 * The coordinator of bench/artifact-upload.ts, in its own process so its memory is measured
 * alone: `node --import tsx artifact-coordinator.ts <dataDir>`. Sets max_artifacts_size to
 * 2 GiB, seeds a project with `count` running jobs (default 3: a job keeps its first archive,
 * as in GitLab, so each upload needs its own), listens on a free port and prints one JSON line
 * `{"base", "jobs": [{"jobId", "token"}, ...]}`.
 */
import type { AddressInfo } from 'node:net';
import { createCoordinator } from '../../src/coordinator/app.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { seedPipeline } from '../../test/helpers/ci-pipelines.ts';
import { runningJobToken } from '../../test/helpers/runner-artifacts.ts';

const ROOT_TOKEN = 'bench-root-token-0123456789';
const [dataDir, countArgument = '3'] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: artifact-coordinator.ts <dataDir> [count]');
const count = Number(countArgument);

const coordinator = await createCoordinator({ dataDir, rootToken: ROOT_TOKEN, logger: silentLogger() });
await coordinator.context.settings.update({ max_artifacts_size: 2048 });
const created = await coordinator.app.inject({
  method: 'POST',
  url: '/api/v4/projects',
  headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
  payload: JSON.stringify({ name: 'bench-artifacts', initialize_with_readme: true }),
});
if (created.statusCode !== 201) throw new Error(`POST /projects answered ${created.statusCode}: ${created.body}`);
const project = JSON.parse(created.body) as { id: number };
const head = JSON.parse((await coordinator.app.inject({ url: `/api/v4/projects/${project.id}/repository/commits/main`, headers: { 'private-token': ROOT_TOKEN } })).body) as { id: string };
const names = Array.from({ length: count }, (_, index) => `package${index}`);
const { jobs } = await seedPipeline(coordinator, { projectId: project.id, sha: head.id, ref: 'main', jobs: names.map((name) => ({ name, stage: 'build' })) });
const running = [];
for (const name of names) running.push({ jobId: jobs[name]!.id, token: await runningJobToken(coordinator, jobs[name]!) });
await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
const { port } = coordinator.app.server.address() as AddressInfo;
process.stdout.write(`${JSON.stringify({ base: `http://127.0.0.1:${port}`, jobs: running })}\n`);
process.on('SIGTERM', () => {
  void coordinator.app.close().then(() => process.exit(0));
});
