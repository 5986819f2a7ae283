/**
 * What the abuse measurements share: one listening coordinator in a scratch data directory
 * (root signed in by a known token), the environment git runs in, and small timing helpers.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createCoordinator, type Coordinator, type CoordinatorOptions } from '../../src/coordinator/app.ts';
import type { CoordinatorContext } from '../../src/coordinator/context.ts';
import { silentLogger } from '../../src/shared/logger.ts';

export const ROOT_TOKEN = 'bench-root-token-0123456789';

/** git with no user or system configuration, a fixed identity and no prompts. */
export const GIT_ENV: Record<string, string> = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: tmpdir(),
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

export interface BenchCoordinator {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  repositories: CoordinatorContext['repositories'];
  /** The coordinator itself (for `ciServicesOf`: its background workers). */
  coordinator: Coordinator;
  /** A scratch directory for the measurement's own files, removed on close. */
  work: string;
  /** Creates a project as root; throws unless 201. */
  createProject(fields: Record<string, unknown>): Promise<{ id: number; path_with_namespace: string }>;
  close(): Promise<void>;
}

/** Starts a coordinator listening on a free local port, its data in a new temporary directory; `extra` options over the defaults. */
export async function startBenchCoordinator(extra: Partial<CoordinatorOptions> = {}): Promise<BenchCoordinator> {
  const work = await mkdtemp(path.join(tmpdir(), 'gantry-bench-abuse-'));
  const coordinator = await createCoordinator({ dataDir: path.join(work, 'data'), rootToken: ROOT_TOKEN, logger: silentLogger(), ...extra });
  try {
    await coordinator.app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await coordinator.close();
    await rm(work, { recursive: true, force: true });
    throw error;
  }
  const { port } = coordinator.app.server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    port,
    repositories: coordinator.context.repositories,
    coordinator,
    work,
    async createProject(fields) {
      const response = await fetch(`${base}/api/v4/projects`, {
        method: 'POST',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify(fields),
      });
      if (response.status !== 201) throw new Error(`POST /projects answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { id: number; path_with_namespace: string };
    },
    async close() {
      await coordinator.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** Milliseconds `work` took, rounded. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return Math.round(performance.now() - started);
}

/** The value at `fraction` (0–1] of an ascending list, to two decimals; NaN when empty. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const value = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)]!;
  return Math.round(value * 100) / 100;
}

/** The middle value (the mean of the two middle ones for an even count), to two decimals. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return Math.round(value * 100) / 100;
}

/** `value / base` to two decimals. */
export function ratioTo(base: number, value: number): number {
  return Math.round((value / base) * 100) / 100;
}
