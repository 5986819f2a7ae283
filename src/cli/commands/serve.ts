import { createCoordinator } from '../../coordinator/app.ts';
import { createLogger } from '../../shared/logger.ts';
import type { CoordinatorSettings } from './settings.ts';

/** Starts the coordinator and resolves once it has shut down after SIGTERM or SIGINT. */
export async function serve(options: CoordinatorSettings, stdout: (line: string) => void): Promise<void> {
  const logger = createLogger();
  const coordinator = await createCoordinator({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    externalUrl: options.externalUrl ?? `http://localhost:${options.port}`,
    rootToken: options.rootToken,
    jobRequestLongPollSeconds: options.jobRequestLongPollSeconds,
    ...options.bodyLimits,
    ci: { archiveMemberLimits: options.archiveMemberLimits },
    shutdownGraceMs: options.shutdownGraceMs,
    logger,
  });
  if (coordinator.createdRootToken !== undefined) {
    stdout(`Created administrator "root". Personal token (shown once): ${coordinator.createdRootToken}`);
  }
  await coordinator.app.listen({ port: options.port, host: options.host });

  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      // Still listening while closing: with no listener left, execa's exit handler would
      // raise the signal again and end the process before it has closed.
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'shutting down');
      void coordinator
        .close()
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
