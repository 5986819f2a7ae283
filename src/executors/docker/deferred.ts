/**
 * `executor = "docker"` as a `[[runners]]` entry gets it: the settings are checked at once, the
 * executor's code (with dockerode, its ssh2 and its gRPC) is imported on first use, which for
 * the daemon is the start-up sweep. A runner without docker entries never loads it.
 */
import type { Environment, Executor, ExecutorFeatures, PrepareRequest } from '../types.ts';
import { checkedDockerOptions, DOCKER_FEATURES, type DockerSettings } from './settings.ts';

export type DockerExecutorLoader = (settings: DockerSettings) => Promise<Executor>;

const importDockerExecutor: DockerExecutorLoader = async (settings) => {
  const { DockerExecutor } = await import('./docker-executor.ts');
  return new DockerExecutor(settings);
};

export class DeferredDockerExecutor implements Executor {
  readonly name = 'docker' as const;
  readonly features: ExecutorFeatures = { ...DOCKER_FEATURES };
  private executor: Promise<Executor> | null = null;

  constructor(
    private readonly settings: DockerSettings,
    private readonly load: DockerExecutorLoader = importDockerExecutor,
  ) {
    checkedDockerOptions(settings);
  }

  private loadedExecutor(): Promise<Executor> {
    return (this.executor ??= this.load(this.settings));
  }

  async prepare(request: PrepareRequest): Promise<Environment> {
    return (await this.loadedExecutor()).prepare(request);
  }

  async sweep(): Promise<number> {
    const executor = await this.loadedExecutor();
    return (await executor.sweep?.()) ?? 0;
  }
}
