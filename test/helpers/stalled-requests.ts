/**
 * Requests that stall on purpose, for tests of work that must stop when its client goes or
 * the coordinator closes: a download read no further than its first chunk, the processes git
 * runs in a repository, and a bounded wait.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';

/** Processes working in `gitDir` (by command line or working directory), as "pid command". */
export function gitProcessesIn(gitDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (command.includes(gitDir) || cwd === gitDir) found.push(`${pid} ${command}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

export interface StalledDownload {
  status: number;
  /** The first bytes of the body; the rest stays unread (the server is held up by backpressure). */
  head: Buffer;
  /** Reads the rest of the answer; resolves once the connection has closed (a paused socket does not see its end). */
  drain(): Promise<void>;
  /** Hangs up (destroys the connection), as a client that went away does. */
  hangUp(): void;
}

/** A request whose answer is read no further than its first chunk (node:http: a hang-up closes the connection). */
export function startDownload(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<StalledDownload> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      response.once('data', (chunk: Buffer) => {
        response.pause();
        const socket = request.socket!;
        const closed = new Promise<void>((done) => socket.once('close', () => done()));
        response.on('error', () => undefined);
        const drain = () => {
          response.resume();
          return closed;
        };
        resolve({ status: response.statusCode ?? 0, head: chunk, drain, hangUp: () => request.destroy() });
      });
      response.once('end', () => reject(new Error('the answer ended at once')));
    });
    request.on('error', (error) => reject(error));
    request.end(options.body);
  });
}

export async function waitFor(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `promise`, or a failure naming `what` once `timeoutMs` have passed. */
export async function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
