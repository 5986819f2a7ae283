/**
 * `runner run` (every [[runners]] entry of config.toml) and `runner run-single` (one runner
 * from flags, no config file). SIGQUIT: stop taking jobs, finish the running ones.
 * SIGTERM/SIGINT: abort running jobs (runner_system_failure) within shutdown_timeout; a
 * second signal exits at once. SIGHUP (and any change to the file): reload config.toml.
 * `listen_address` / `--listen-address`: /metrics and /health.
 */
import path from 'node:path';
import { DEFAULTS, pinoLevel, type RunnerConfig, type RunnerEntry } from '../../runner/config/config.ts';
import { LISTEN_ADDRESS_HINT, parseListenAddress } from '../../runner/config/listen-address.ts';
import { RunnerMetrics } from '../../runner/daemon/metrics.ts';
import { loadSystemId } from '../../runner/config/system-id.ts';
import { RunnerService } from '../../runner/daemon/service.ts';
import { createLogger, type Logger } from '../../shared/logger.ts';
import { isExecutorName } from '../../executors/registry.ts';
import { CommandError, configPath, readConfig, type CommandIo } from './runner-config.ts';

export interface RunArgs {
  config?: string;
  workingDirectory?: string;
  listenAddress?: string;
}

export interface RunSingleArgs {
  url?: string;
  token?: string;
  name?: string;
  executor?: string;
  shell?: string;
  buildsDir?: string;
  cacheDir?: string;
  outputLimit?: number;
  dockerImage?: string;
  dockerPullPolicy?: string[];
  maxBuilds?: number;
  workingDirectory?: string;
  listenAddress?: string;
}

/** The logger of a run, counting its warnings and errors into the metrics. */
function loggerFor(config: RunnerConfig, metrics: RunnerMetrics): Logger {
  return createLogger({ level: pinoLevel(config.logLevel), pretty: config.logFormat === 'json' ? false : undefined, onLine: metrics.countLogLine });
}

function checkListenAddress(value: string | undefined): void {
  if (value !== undefined && !parseListenAddress(value)) throw new CommandError(`--listen-address "${value}" ${LISTEN_ADDRESS_HINT}`);
}

async function serve(service: RunnerService, logger: Logger, untilDone: boolean): Promise<number> {
  let signals = 0;
  let done: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (done = resolve));
  const onQuit = (): void => {
    logger.info('SIGQUIT: no new jobs; waiting for the running ones to finish');
    void service.stop().then(() => done(0));
  };
  const onTerminate = (signal: NodeJS.Signals): void => {
    if (++signals > 1) {
      logger.warn(`second ${signal}: exiting now`);
      done(1);
      return;
    }
    logger.info(`${signal}: aborting running jobs`);
    void service.abort(signal === 'SIGINT' ? 'interrupt' : 'terminated').then((clean) => {
      if (!clean) logger.warn('jobs did not report within shutdown_timeout');
      done(clean ? 0 : 1);
    });
  };
  const onHangUp = (): void => {
    if (!service.reloadable) {
      logger.info('SIGHUP: no config file to reload');
      return;
    }
    logger.info('SIGHUP: reloading the configuration');
    void service.reload('SIGHUP');
  };
  process.on('SIGQUIT', onQuit);
  process.on('SIGTERM', onTerminate);
  process.on('SIGINT', onTerminate);
  process.on('SIGHUP', onHangUp);
  try {
    try {
      await service.start();
    } catch (error) {
      await service.close();
      throw new CommandError(error instanceof Error ? error.message : String(error));
    }
    logger.info({ runners: service.daemon.workers.length }, 'runner started');
    if (untilDone) void service.finished().then(() => done(0));
    const code = await finished;
    logger.info('runner stopped');
    return code;
  } finally {
    process.off('SIGQUIT', onQuit);
    process.off('SIGTERM', onTerminate);
    process.off('SIGINT', onTerminate);
    process.off('SIGHUP', onHangUp);
  }
}

export async function runRun(args: RunArgs, io: CommandIo): Promise<number> {
  checkListenAddress(args.listenAddress);
  const file = configPath(args, io);
  const { config, text } = await readConfig(file, io);
  if (config.runners.length === 0) throw new CommandError(`${file}: no [[runners]] entry (register a runner first)`);
  const workingDirectory = path.resolve(io.cwd, args.workingDirectory ?? '.');
  const metrics = new RunnerMetrics();
  const logger = loggerFor(config, metrics);
  const systemId = await loadSystemId(file);
  const service = new RunnerService({ config, configFile: file, configText: text, listenAddress: args.listenAddress, metrics, logger, workingDirectory, systemId });
  return serve(service, logger, false);
}

export async function runSingle(args: RunSingleArgs, io: CommandIo): Promise<number> {
  const env = io.env;
  const url = args.url ?? env.CI_SERVER_URL;
  const token = args.token ?? env.CI_SERVER_TOKEN;
  const executor = args.executor ?? env.RUNNER_EXECUTOR;
  if (!url) throw new CommandError('--url is missing (or set CI_SERVER_URL)');
  if (!token) throw new CommandError('--token is missing (or set CI_SERVER_TOKEN)');
  if (!executor) throw new CommandError('--executor is missing (or set RUNNER_EXECUTOR)');
  if (!isExecutorName(executor) || executor === 'fake') throw new CommandError(`unknown executor "${executor}" (known: shell, docker)`);
  const shell = args.shell ?? 'bash';
  if (shell !== 'bash' && shell !== 'sh') throw new CommandError(`unknown shell "${shell}" (known: bash, sh)`);
  const entry: RunnerEntry = {
    name: args.name ?? env.RUNNER_NAME ?? 'run-single',
    url,
    token,
    executor,
    limit: 0,
    requestConcurrency: 1,
    outputLimit: args.outputLimit ?? DEFAULTS.outputLimit,
    buildsDir: args.buildsDir,
    cacheDir: args.cacheDir,
    environment: [],
    shell,
    debugTraceDisabled: false,
    docker: { image: args.dockerImage ?? env.DOCKER_IMAGE, pullPolicy: args.dockerPullPolicy as RunnerEntry['docker']['pullPolicy'] },
    cache: { type: '', shared: false },
    featureFlags: {},
  };
  checkListenAddress(args.listenAddress);
  const config: RunnerConfig = {
    concurrent: 1,
    checkInterval: DEFAULTS.checkInterval,
    logLevel: env.GANTRY_LOG_LEVEL ?? 'info',
    logFormat: 'runner',
    shutdownTimeout: DEFAULTS.shutdownTimeout,
    listenAddress: args.listenAddress,
    runners: [entry],
  };
  const metrics = new RunnerMetrics();
  const logger = loggerFor(config, metrics);
  const workingDirectory = path.resolve(io.cwd, args.workingDirectory ?? '.');
  const service = new RunnerService({ config, metrics, logger, workingDirectory, maxBuilds: args.maxBuilds, systemId: await loadSystemId() });
  return serve(service, logger, args.maxBuilds !== undefined);
}
