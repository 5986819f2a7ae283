/**
 * A compile worker: runs `compilePipeline` for the pool, one compile at a time, and asks the
 * main thread for every file it reads (the reader cannot cross threads).
 */
import { parentPort, type MessagePort } from 'node:worker_threads';
import { compilePipeline } from '../ci/compile.ts';
import type { RepositoryReader } from '../ci/model.ts';
import type { FromWorker, ReaderMethod, ToWorker } from './messages.ts';

class ReaderProxy {
  private nextCall = 0;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  failed = false;

  constructor(private readonly port: MessagePort) {}

  reader(methods: readonly ReaderMethod[]): RepositoryReader {
    const call = (method: ReaderMethod) => (...args: unknown[]) => this.call(method, args);
    const reader: Record<string, unknown> = {};
    for (const method of methods) reader[method] = call(method);
    return reader as unknown as RepositoryReader;
  }

  settle(message: Extract<ToWorker, { type: 'read-result' }>): void {
    const waiting = this.pending.get(message.call);
    if (!waiting) return;
    this.pending.delete(message.call);
    if (message.ok) waiting.resolve(message.value);
    else {
      this.failed = true;
      waiting.reject(new Error(message.message));
    }
  }

  private call(method: ReaderMethod, args: unknown[]): Promise<unknown> {
    const call = this.nextCall++;
    return new Promise((resolve, reject) => {
      this.pending.set(call, { resolve, reject });
      send(this.port, { type: 'read', call, method, args });
    });
  }
}

function send(port: MessagePort, message: FromWorker): void {
  port.postMessage(message);
}

function serve(port: MessagePort): void {
  let proxy = new ReaderProxy(port);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'read-result') {
      proxy.settle(message);
      return;
    }
    proxy = new ReaderProxy(port);
    const current = proxy;
    compilePipeline(message.text, { ...message.context, files: current.reader(message.readers) }).then(
      (result) => send(port, { type: 'compiled', result }),
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        send(port, { type: 'threw', message: failure.message, stack: failure.stack, readerFailed: current.failed });
      },
    );
  });
  send(port, { type: 'ready' });
}

if (parentPort) serve(parentPort);
