import { createCoordinator } from '../../coordinator/app.ts';
import { createLogger } from '../../shared/logger.ts';
import { freePort } from './free-port.ts';
import type { CoordinatorSettings } from './settings.ts';

/** Starts the coordinator and resolves once it has shut down after SIGTERM or SIGINT. */
export async function serve(options: CoordinatorSettings, stdout: (line: string) => void): Promise<void> {
  const logger = createLogger();
  const port = options.port === 0 ? await freePort(options.host) : options.port;
  const externalUrl = options.externalUrl ?? `http://localhost:${port}`;
  const coordinator = await createCoordinator({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    externalUrl,
    rootToken: options.rootToken,
    jobRequestLongPollSeconds: options.jobRequestLongPollSeconds,
    monitoringIpWhitelist: options.monitoringIpWhitelist,
    ...options.bodyLimits,
    logger,
  });
  if (coordinator.createdRootToken !== undefined) {
    // A token the operator chose stays out of the service log; only one Gantry made is shown.
    stdout(
      options.rootToken === undefined
        ? `Created administrator "root". Personal token (shown once): ${coordinator.createdRootToken}`
        : 'Created administrator "root" with the personal token given in GANTRY_ROOT_TOKEN.',
    );
  }
  await coordinator.app.listen({ port, host: options.host });
  stdout(`Listening on ${options.host}:${port}; external URL ${externalUrl}`);

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      logger.info({ signal }, 'shutting down');
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      void coordinator.close().then(resolve, (error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        resolve();
      });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
