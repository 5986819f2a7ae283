/**
 * One compile worker thread: its heap ceiling is set when it starts, the compute time of each
 * compile is watched from here (the worker's event loop utilisation: busy time, time spent
 * waiting for the main thread's file reads not counted), and a worker past either limit is
 * terminated.
 */
import { Worker } from 'node:worker_threads';
import { failedCompile } from '../ci/compile.ts';
import type { CompileContext, CompileResult, RepositoryReader } from '../ci/model.ts';
import { READER_METHODS, type FromWorker, type ToWorker } from './messages.ts';

export const CPU_LIMIT_MESSAGE = (ms: number): string => `Compiling the configuration exceeded the compute time limit of ${ms} ms`;
export const MEMORY_LIMIT_MESSAGE = (mb: number): string => `Compiling the configuration exceeded the memory limit of ${mb} MB`;

type ReaderCall = (...args: unknown[]) => Promise<unknown>;

export class CompileWorker {
  readonly ready: Promise<void>;
  /** False once the thread has exited or was told to. */
  alive = true;
  private readonly worker: Worker;

  constructor(readonly memoryMb: number) {
    this.worker = startWorker(memoryMb);
    this.ready = new Promise((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type !== 'ready') return;
        this.worker.off('message', onMessage).off('error', reject).off('exit', onExit);
        resolve();
      };
      const onExit = (code: number) => reject(new Error(`the compile worker exited with code ${code} as it started`));
      this.worker.on('message', onMessage).once('error', reject).once('exit', onExit);
    });
    this.worker.once('exit', () => (this.alive = false));
  }

  /** Keeps the process alive while compiling, not while idle. */
  hold(busy: boolean): void {
    if (busy) this.worker.ref();
    else this.worker.unref();
  }

  async terminate(): Promise<void> {
    this.alive = false;
    await this.worker.terminate();
  }

  /**
   * Compiles; past the compute time or the heap ceiling the worker is terminated and the
   * answer is an invalid result saying which. A reader's error is rethrown as it was.
   */
  run(text: string, context: CompileContext, cpuMs: number): Promise<CompileResult> {
    const { worker } = this;
    const { files, ...portable } = context;
    return new Promise<CompileResult>((resolve, reject) => {
      let readerError: { error: unknown } | null = null;
      let timer: NodeJS.Timeout | undefined;
      const baseline = worker.performance.eventLoopUtilization();
      const finish = (): void => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      };
      const watch = (): void => {
        const used = worker.performance.eventLoopUtilization(baseline).active;
        if (used < cpuMs) {
          timer = setTimeout(watch, Math.max(cpuMs - used, 5));
          return;
        }
        finish();
        void this.terminate();
        resolve(failedCompile(CPU_LIMIT_MESSAGE(cpuMs)));
      };
      const onMessage = (message: FromWorker): void => {
        if (message.type === 'read') {
          callReader(files, message.method, message.args).then(
            (value) => post(worker, { type: 'read-result', call: message.call, ok: true, value }),
            (error: unknown) => {
              readerError ??= { error };
              post(worker, { type: 'read-result', call: message.call, ok: false, message: error instanceof Error ? error.message : String(error) });
            },
          );
        } else if (message.type === 'compiled') {
          finish();
          resolve(message.result);
        } else if (message.type === 'threw') {
          finish();
          if (message.readerFailed && readerError) reject(readerError.error);
          else reject(Object.assign(new Error(`the CI compiler failed: ${message.message}`), { stack: message.stack }));
        }
      };
      const onError = (error: Error & { code?: string }): void => {
        finish();
        this.alive = false;
        if (error.code === 'ERR_WORKER_OUT_OF_MEMORY') resolve(failedCompile(MEMORY_LIMIT_MESSAGE(this.memoryMb)));
        else reject(error);
      };
      const onExit = (code: number): void => {
        finish();
        reject(new Error(`the compile worker stopped (exit code ${code})`));
      };
      worker.on('message', onMessage).once('error', onError).once('exit', onExit);
      timer = setTimeout(watch, cpuMs);
      post(worker, { type: 'compile', text, context: portable, readers: READER_METHODS.filter((method) => files[method] !== undefined) });
    });
  }
}

function post(worker: Worker, message: ToWorker): void {
  worker.postMessage(message);
}

async function callReader(files: RepositoryReader, method: keyof RepositoryReader, args: unknown[]): Promise<unknown> {
  const call = files[method] as ReaderCall | undefined;
  if (!call) throw new Error(`the reader has no ${method}`);
  return call.apply(files, args);
}

/**
 * From the compiled package the worker is `worker.js` beside this file (named through its
 * folder: `runner exec`'s bundle, dist/cli/exec-bundle.js, holds this code too). Run from sources
 * (tests, benches under tsx), the thread first registers tsx, which Node 20 does not pass
 * on to worker threads.
 */
function startWorker(memoryMb: number): Worker {
  const options = { resourceLimits: { maxOldGenerationSizeMb: memoryMb } };
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('../ci-sandbox/worker.js', here), options);
  const entry = JSON.stringify(new URL('./worker.ts', here).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${entry}); })`, { ...options, eval: true });
}
