/**
 * `coordinator start` (what `npm start` runs): the coordinator on its defaults plus a runner
 * registered to it with the instance registration token, in one process. The runner's
 * config.toml lives in `<data>/runner/` and is reused on the next start while its token is
 * still valid; root's token is kept in `<data>/root-token` (mode 0600) so every start can
 * print it.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createCoordinator, type Coordinator } from '../../coordinator/app.ts';
import { INSTANCE_TOKEN_SETTING } from '../../coordinator/services/ci/runners/tokens.ts';
import { DockerExecutor } from '../../executors/docker/docker-executor.ts';
import { ImageAwareExecutor } from '../../executors/local/image-aware-executor.ts';
import { appendRunner, readIfExists } from '../../runner/config/write.ts';
import { parseRunnerConfig, type RunnerEntry } from '../../runner/config/config.ts';
import { executorOf } from '../../runner/daemon/settings.ts';
import { loadSystemId } from '../../runner/config/system-id.ts';
import { RunnerService } from '../../runner/daemon/service.ts';
import { registerRunner, verifyRunner } from '../../runner/http/runner-api.ts';
import { Transport } from '../../runner/http/transport.ts';
import { runnerInfo, userAgent } from '../../runner/version.ts';
import { createLogger, type Logger } from '../../shared/logger.ts';
import { closeCoordinatorWithinBound } from './bounded-shutdown.ts';
import { freePort } from './free-port.ts';
import type { CoordinatorSettings } from './settings.ts';


export const LOCAL_RUNNER_NAME = 'gantry-local';

/** Starts both halves and resolves once they have shut down after SIGTERM or SIGINT. */
export async function startLocal(options: CoordinatorSettings, stdout: (line: string) => void): Promise<void> {
  const logger = createLogger();
  const dataDir = path.resolve(options.dataDir);
  // The external URL goes into every job's clone URL, so port 0 is settled before the coordinator exists.
  const port = options.port === 0 ? await freePort(options.host) : options.port;
  const url = options.externalUrl ?? `http://localhost:${port}`;
  const coordinator = await createCoordinator({
    dataDir,
    databaseUrl: options.databaseUrl,
    externalUrl: url,
    rootToken: options.rootToken,
    secretKeys: options.secretKeys,
    jobRequestLongPollSeconds: options.jobRequestLongPollSeconds,
    monitoringIpWhitelist: options.monitoringIpWhitelist,
    ...options.bodyLimits,
    ci: { archiveMemberLimits: options.archiveMemberLimits },
    shutdownGraceMs: options.shutdownGraceMs,
    instances: options.instances,
    mail: options.mail,
    logger,
  });
  let runner: RunnerService | undefined;
  try {
    const rootToken = options.rootToken === undefined ? await rememberRootToken(dataDir, coordinator.createdRootToken) : FROM_ENVIRONMENT;
    await coordinator.app.listen({ port, host: options.host });
    runner = await startRunner(coordinator, dataDir, `http://127.0.0.1:${port}`, logger);
    for (const line of banner(url, rootToken, dataDir)) stdout(line);
  } catch (error) {
    await runner?.close();
    await coordinator.close();
    throw error;
  }
  await untilSignal(logger);
  await runner.abort('terminated');
  await runner.close();
  await closeCoordinatorWithinBound(coordinator, options.shutdownGraceMs, logger);
}

/** The operator chose root's token: it is theirs, so it is neither printed nor written to the data directory. */
const FROM_ENVIRONMENT = { fromEnvironment: 'GANTRY_ROOT_TOKEN' } as const;
type RootTokenSource = string | null | typeof FROM_ENVIRONMENT;

/** root's token: saved when this start created root, else read back from the data directory. */
async function rememberRootToken(dataDir: string, created: string | undefined): Promise<string | null> {
  const file = path.join(dataDir, 'root-token');
  if (created !== undefined) {
    await writeFile(file, `${created}\n`, { mode: 0o600 });
    return created;
  }
  return (await readIfExists(file))?.trim() || null;
}

async function startRunner(coordinator: Coordinator, dataDir: string, url: string, logger: Logger): Promise<RunnerService> {
  const runnerDir = path.join(dataDir, 'runner');
  await mkdir(runnerDir, { recursive: true, mode: 0o700 });
  const file = path.join(runnerDir, 'config.toml');
  const transport = new Transport({ url, userAgent: userAgent() });
  try {
    const existing = await readIfExists(file);
    const entry = existing === null ? undefined : parseRunnerConfig(existing, file).config.runners.find((runner) => runner.name === LOCAL_RUNNER_NAME);
    const alive = entry !== undefined && (await verifyRunner(transport, entry.token)).kind === 'alive';
    if (alive && entry.url !== url) {
      // Started on another port: the same runner, told where the coordinator is now.
      await rm(file, { force: true });
      await appendRunner(file, { name: LOCAL_RUNNER_NAME, url, token: entry.token, executor: 'shell' });
    } else if (!alive) {
      await rm(file, { force: true });
      const registrationToken = (await coordinator.context.stores.settings.load())?.settings[INSTANCE_TOKEN_SETTING];
      if (typeof registrationToken !== 'string') throw new Error('the instance has no runner registration token');
      const result = await registerRunner(transport, {
        registrationToken,
        description: LOCAL_RUNNER_NAME,
        tagList: [],
        runUntagged: true,
        locked: false,
        active: true,
        info: runnerInfo(),
      });
      if (result.kind !== 'registered') throw new Error(`the local runner could not register (${result.kind === 'failed' ? result.message : '403'})`);
      await appendRunner(file, { name: LOCAL_RUNNER_NAME, url, token: result.token, executor: 'shell' });
    }
  } finally {
    await transport.close();
  }
  const text = await readFile(file, 'utf8');
  const { config } = parseRunnerConfig(text, file);
  const service = new RunnerService({
    config,
    configFile: file,
    configText: text,
    logger: logger.child({ component: 'runner' }),
    workingDirectory: runnerDir,
    executorFor: (entry: RunnerEntry) => imageAware(entry, runnerDir),
    systemId: await loadSystemId(file),
  });
  await service.start();
  return service;
}

/** Shell for every job, Docker (images pulled only when missing: no registry is assumed) for jobs with an image. */
function imageAware(entry: RunnerEntry, runnerDir: string): ImageAwareExecutor {
  const docker = new DockerExecutor({ ...entry.docker, pullPolicy: entry.docker.pullPolicy ?? ['if-not-present'] });
  return new ImageAwareExecutor(executorOf(entry, runnerDir), docker);
}

/** What a newcomer needs: where it runs, the token, and a recipe that works as printed. */
export function banner(url: string, rootToken: RootTokenSource, dataDir: string): string[] {
  const token = rootToken === FROM_ENVIRONMENT ? '$GANTRY_ROOT_TOKEN' : (rootToken ?? '<root token>');
  const host = new URL(url);
  const pushUrl = `${host.protocol}//root:${token}@${host.host}${host.pathname.replace(/\/$/, '')}/root/demo.git`;
  return [
    `Gantry is running at ${url} (data in ${dataDir}), with a local runner.`,
    rootToken === FROM_ENVIRONMENT
      ? 'Administrator: root; its personal token is the GANTRY_ROOT_TOKEN it was created with (not printed).'
      : rootToken === null
        ? `root's token was shown when ${dataDir} was created (it is not kept there).`
        : `Administrator: root, personal token ${rootToken} (also in ${path.join(dataDir, 'root-token')}).`,
    '',
    'Push a repository and watch its pipeline run:',
    `  curl -s -H "PRIVATE-TOKEN: ${token}" -d name=demo ${url}/api/v4/projects >/dev/null`,
    `  mkdir demo && cd demo && git init -q && printf 'hello:\\n  script: echo hello from gantry\\n' > .gitlab-ci.yml && git add . && git -c user.name=you -c user.email=you@example.com commit -qm ci && git push -q ${pushUrl} HEAD:main`,
    `  sleep 3; curl -s -H "PRIVATE-TOKEN: ${token}" ${url}/api/v4/projects/root%2Fdemo/pipelines`,
  ];
}

function untilSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down');
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      // Still listening while closing: with no listener left, execa's exit handler would
      // raise the signal again and end the process before it has closed.
      process.on('SIGTERM', closing);
      process.on('SIGINT', closing);
      resolve();
    };
    const closing = () => logger.info('already shutting down');
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
