/** Runs the CI compiler in worker threads with a compute-time deadline and a heap ceiling. */
export { CompileSandbox, DEFAULT_IDLE_MS, type CompileSandboxOptions } from './sandbox.ts';
export { CPU_LIMIT_MESSAGE, MEMORY_LIMIT_MESSAGE } from './compile-worker.ts';
