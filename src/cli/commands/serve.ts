import { createCoordinator } from '../../coordinator/app.ts';
import { createLogger } from '../../shared/logger.ts';

export interface ServeOptions {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl?: string;
  externalUrl?: string;
  rootToken?: string;
  /** Request body limits in bytes; see CoordinatorOptions. */
  bodyLimits?: { bodyLimit?: number; contentBodyLimit?: number; anonymousBodyLimit?: number; uploadBodyLimit?: number };
}

/** Starts the coordinator and resolves once it has shut down after SIGTERM or SIGINT. */
export async function serve(options: ServeOptions, stdout: (line: string) => void): Promise<void> {
  const logger = createLogger();
  const coordinator = await createCoordinator({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl,
    externalUrl: options.externalUrl ?? `http://localhost:${options.port}`,
    rootToken: options.rootToken,
    ...options.bodyLimits,
    logger,
  });
  if (coordinator.createdRootToken !== undefined) {
    stdout(`Created administrator "root". Personal token (shown once): ${coordinator.createdRootToken}`);
  }
  await coordinator.app.listen({ port: options.port, host: options.host });

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
