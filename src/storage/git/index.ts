import { GitRepositoryManager, type RepositoryManagerOptions } from './manager.ts';

export type * from './types.ts';
export type { RepositoryManagerOptions } from './manager.ts';
export { GitRepositoryManager } from './manager.ts';

/** Bare repositories under `options.root`, driven by the git CLI. */
export function createRepositoryManager(options: RepositoryManagerOptions): GitRepositoryManager {
  return new GitRepositoryManager(options);
}
