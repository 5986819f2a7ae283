/**
 * The executor of the local runner `npm start` registers: a job that names an `image:` runs
 * in Docker when an engine answers, every other job (and every job while no engine answers)
 * runs on the shell. A plain gitlab-runner needs two runners and tags for this; a developer
 * trying Gantry on a laptop should not.
 */
import type { DockerExecutor } from '../docker/docker-executor.ts';
import type { Environment, Executor, ExecutorFeatures, PrepareRequest } from '../types.ts';

/** How long an answer about the engine is trusted before asking again. */
const PROBE_TTL_MS = 30_000;
const PROBE_TIMEOUT_MS = 2_000;

export class ImageAwareExecutor implements Executor {
  readonly name = 'shell' as const;
  private probed: { up: boolean; at: number } | null = null;

  constructor(
    private readonly shell: Executor,
    private readonly docker: DockerExecutor,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the runner tells the coordinator: images and services only while an engine answered. */
  get features(): ExecutorFeatures {
    const up = this.probed?.up ?? false;
    return { ...this.shell.features, image: up, services: up };
  }

  async sweep(): Promise<number> {
    const shellSwept = (await this.shell.sweep?.()) ?? 0;
    return (await this.dockerAnswers()) ? shellSwept + (await this.docker.sweep()) : shellSwept;
  }

  async prepare(request: PrepareRequest): Promise<Environment> {
    if (request.image?.name) {
      if (await this.dockerAnswers()) return this.docker.prepare(request);
      request.log(`No Docker engine answers: running on the shell, without the image ${request.image.name}`, 'warning');
    }
    return this.shell.prepare(request);
  }

  /** Whether the engine answered a ping recently (at most one ping per PROBE_TTL_MS). */
  async dockerAnswers(): Promise<boolean> {
    const now = this.now();
    if (this.probed && now - this.probed.at < PROBE_TTL_MS) return this.probed.up;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS)));
    const ping = this.docker.engine.ping().then(
      () => true,
      () => false,
    );
    const up = await Promise.race([ping, timeout]).finally(() => clearTimeout(timer));
    this.probed = { up, at: now };
    return up;
  }
}
