/**
 * `runner run` (every [[runners]] entry of config.toml) and `runner run-single` (one runner
 * from flags, no config file). SIGQUIT: stop taking jobs, finish the running ones.
 * SIGTERM/SIGINT: abort running jobs (runner_system_failure) within shutdown_timeout; a
 * second signal exits at once.
 */
import path from 'node:path';
import { DEFAULTS, type RunnerConfig, type RunnerEntry } from '../../runner/config/config.ts';
import { RunnerDaemon } from '../../runner/daemon/daemon.ts';
import { createLogger, type Logger } from '../../shared/logger.ts';
import { isExecutorName } from '../../executors/registry.ts';
import { CommandError, configPath, loadConfig, type CommandIo } from './runner-config.ts';

export interface RunArgs {
  config?: string;
  workingDirectory?: string;
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
}

function loggerFor(config: RunnerConfig): Logger {
  const level = config.logLevel === 'warning' ? 'warn' : config.logLevel === 'panic' ? 'fatal' : config.logLevel;
  return createLogger({ level, pretty: config.logFormat === 'json' ? false : undefined });
}

async function serve(daemon: RunnerDaemon, logger: Logger, untilDone: boolean): Promise<number> {
  let signals = 0;
  let done: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (done = resolve));
  const onQuit = (): void => {
    logger.info('SIGQUIT: no new jobs; waiting for the running ones to finish');
    void daemon.stop().then(() => done(0));
  };
  const onTerminate = (signal: NodeJS.Signals): void => {
    if (++signals > 1) {
      logger.warn(`second ${signal}: exiting now`);
      done(1);
      return;
    }
    logger.info(`${signal}: aborting running jobs`);
    void daemon.abort(signal === 'SIGINT' ? 'interrupt' : 'terminated').then((clean) => {
      if (!clean) logger.warn('jobs did not report within shutdown_timeout');
      done(clean ? 0 : 1);
    });
  };
  process.on('SIGQUIT', onQuit);
  process.on('SIGTERM', onTerminate);
  process.on('SIGINT', onTerminate);
  try {
    await daemon.start();
    logger.info({ runners: daemon.workers.length }, 'runner started');
    if (untilDone) void daemon.finished().then(() => done(0));
    const code = await finished;
    logger.info('runner stopped');
    return code;
  } finally {
    process.off('SIGQUIT', onQuit);
    process.off('SIGTERM', onTerminate);
    process.off('SIGINT', onTerminate);
  }
}

export async function runRun(args: RunArgs, io: CommandIo): Promise<number> {
  const file = configPath(args, io);
  const config = await loadConfig(file, io);
  if (config.runners.length === 0) throw new CommandError(`${file}: no [[runners]] entry (register a runner first)`);
  const workingDirectory = path.resolve(io.cwd, args.workingDirectory ?? '.');
  const logger = loggerFor(config);
  return serve(new RunnerDaemon({ config, logger, workingDirectory }), logger, false);
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
  };
  const config: RunnerConfig = { concurrent: 1, checkInterval: DEFAULTS.checkInterval, logLevel: env.GANTRY_LOG_LEVEL ?? 'info', logFormat: 'runner', shutdownTimeout: DEFAULTS.shutdownTimeout, runners: [entry] };
  const logger = loggerFor(config);
  const workingDirectory = path.resolve(io.cwd, args.workingDirectory ?? '.');
  return serve(new RunnerDaemon({ config, logger, workingDirectory, maxBuilds: args.maxBuilds }), logger, args.maxBuilds !== undefined);
}
