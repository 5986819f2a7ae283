import { createCoordinator } from '../../coordinator/app.ts';
import { createLogger } from '../../shared/logger.ts';
import { closeCoordinatorWithinBound } from './bounded-shutdown.ts';
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
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      // Still listening while closing: with no listener left, execa's exit handler would
      // raise the signal again and end the process before it has closed.
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      void closeCoordinatorWithinBound(coordinator, options.shutdownGraceMs, logger)
        .catch((error: unknown) => logger.error({ err: error }, 'error during shutdown'))
        .finally(() => {
          process.off('SIGTERM', stop);
          process.off('SIGINT', stop);
          resolve();
        });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
