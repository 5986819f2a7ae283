/**
 * Compiles CI files off the event loop: a small pool of worker threads, each running
 * `compilePipeline` with a heap ceiling, each compile with a compute-time deadline
 * (CompileLimits `maxCompileMemoryMb`, `maxCompileCpuMs`). Past either, the compile answers
 * one configuration error and its worker is replaced; the caller's thread keeps serving.
 * Workers start on the first compile and stop after a while idle.
 */
import { availableParallelism } from 'node:os';
import type { PipelineCompiler } from '../ci/compile.ts';
import { resolveLimits, type CompileLimits } from '../ci/limits.ts';
import type { CompileContext, CompileResult } from '../ci/model.ts';
import { CompileWorker } from './compile-worker.ts';

export interface CompileSandboxOptions {
  /** Compiles at once, one worker thread each (default: the cores but one, 1 to 4). */
  workers?: number;
  /** Limits of every compile; a compile's own `context.limits` win over these. */
  limits?: Partial<CompileLimits>;
  /** An idle worker stops after this many milliseconds (default 60 s). */
  idleMs?: number;
}

export const DEFAULT_IDLE_MS = 60_000;

export class CompileSandbox {
  readonly compile: PipelineCompiler = (text, context) => this.run(text, context);
  private readonly size: number;
  private readonly limits: CompileLimits;
  private readonly idleMs: number;
  private readonly workers = new Set<CompileWorker>();
  private readonly idle = new Map<CompileWorker, NodeJS.Timeout>();
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(options: CompileSandboxOptions = {}) {
    this.size = Math.max(1, options.workers ?? Math.min(4, Math.max(1, availableParallelism() - 1)));
    this.limits = resolveLimits(options.limits);
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Stops every worker; compiles in progress or waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.idle.values()) clearTimeout(timer);
    this.idle.clear();
    for (const wake of this.waiting.splice(0)) wake();
    await Promise.all([...this.workers].map((worker) => worker.terminate()));
    this.workers.clear();
  }

  private async run(text: string, context: CompileContext): Promise<CompileResult> {
    const limits = { ...this.limits, ...context.limits };
    const worker = await this.acquire(limits.maxCompileMemoryMb);
    try {
      return await worker.run(text, { ...context, limits }, limits.maxCompileCpuMs);
    } finally {
      this.release(worker);
    }
  }

  private async acquire(memoryMb: number): Promise<CompileWorker> {
    for (;;) {
      if (this.closed) throw new Error('the CI compile sandbox is closed');
      const idle = [...this.idle.keys()];
      const reusable = idle.find((worker) => worker.memoryMb === memoryMb && worker.alive);
      if (reusable) return this.take(reusable);
      // Another heap ceiling than the idle workers have: replace one of them.
      const replaced = idle[0];
      if (replaced && this.workers.size >= this.size) this.discard(replaced);
      if (this.workers.size < this.size) return this.start(memoryMb);
      await new Promise<void>((wake) => this.waiting.push(wake));
    }
  }

  private take(worker: CompileWorker): CompileWorker {
    clearTimeout(this.idle.get(worker));
    this.idle.delete(worker);
    worker.hold(true);
    return worker;
  }

  private async start(memoryMb: number): Promise<CompileWorker> {
    const worker = new CompileWorker(memoryMb);
    this.workers.add(worker);
    worker.hold(true);
    try {
      await worker.ready;
    } catch (error) {
      this.discard(worker);
      this.waiting.shift()?.();
      throw error;
    }
    return worker;
  }

  private release(worker: CompileWorker): void {
    if (!worker.alive || this.closed) this.discard(worker);
    else {
      worker.hold(false);
      this.idle.set(
        worker,
        setTimeout(() => this.discard(worker), this.idleMs).unref(),
      );
    }
    this.waiting.shift()?.();
  }

  private discard(worker: CompileWorker): void {
    clearTimeout(this.idle.get(worker));
    this.idle.delete(worker);
    this.workers.delete(worker);
    if (worker.alive) void worker.terminate();
  }
}
