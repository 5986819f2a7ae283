/**
 * Calls an exported function of a source module in a worker thread, with a bound: a matcher
 * that backtracks on a hostile input does not return for hours, and would hang the test's
 * own thread. Past the bound the worker is terminated and the call fails saying so.
 */
import { Worker } from 'node:worker_threads';

const LOAD_BOUND_MS = 60_000;

export async function boundedCall(moduleUrl: URL, exportName: string, args: unknown[], boundMs: number): Promise<unknown> {
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(${tsx})
      .then(({ register }) => { register(); return import(workerData.module); })
      .then((loaded) => {
        parentPort.postMessage({ loaded: true });
        parentPort.postMessage({ value: loaded[workerData.name](...workerData.args) });
      })
      .catch((error) => parentPort.postMessage({ error: String((error && error.stack) || error) }));`;
  const worker = new Worker(code, { eval: true, workerData: { module: moduleUrl.href, name: exportName, args } });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise((resolve, reject) => {
      const fail = (what: string) => () => reject(new Error(`${exportName}(…) ${what}`));
      timer = setTimeout(fail(`: its module did not load within ${LOAD_BOUND_MS} ms`), LOAD_BOUND_MS);
      worker.on('message', (message: { loaded?: true; value?: unknown; error?: string }) => {
        if (message.loaded) {
          clearTimeout(timer);
          timer = setTimeout(fail(`did not return within ${boundMs} ms`), boundMs);
        } else if (message.error !== undefined) reject(new Error(message.error));
        else resolve(message.value);
      });
      worker.once('error', reject);
    });
  } finally {
    clearTimeout(timer);
    await worker.terminate();
  }
}
