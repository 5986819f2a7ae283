import type { Logger } from '../../shared/logger.ts';
import type { RepositoryManager } from './types.ts';

export type * from './types.ts';

export interface RepositoryManagerOptions {
  /** Directory holding `<projectId>.git` bare repositories. */
  root: string;
  logger: Logger;
}

/** PLACEHOLDER until the git module lands: replaced by the real implementation. */
export function createRepositoryManager(options: RepositoryManagerOptions): RepositoryManager {
  const unavailable = (): never => {
    throw new Error(`git storage is not implemented yet (${options.root})`);
  };
  return {
    create: async () => undefined,
    remove: async () => undefined,
    fork: async () => undefined,
    exists: async () => false,
    open: unavailable,
    close: async () => undefined,
  };
}
