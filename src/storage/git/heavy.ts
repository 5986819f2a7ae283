import { PassThrough, type Readable } from 'node:stream';
import { GitContentError } from './content.ts';
import type { RepositoryAccess } from './reader.ts';
import { ClientGoneError, type GitClient, type WorkSlot } from './work-queue.ts';

/**
 * Heavy git work of one repository (archive, blame, diff, contributors) goes through the
 * manager's GitWorkQueue: a slot is taken before git starts and released when the answer
 * has been produced, its stream has ended, failed or been dropped by the client.
 */

/** The requester heavy work is queued for: the repository's client, else the repository itself. */
export function clientOf(access: RepositoryAccess): GitClient {
  return access.client ?? { key: `repository:${access.gitDir}` };
}

/**
 * Logs a read that failed on the repository's content (a `.git` or `..` entry, a corrupt
 * tree) as a warning naming the project and the operation; other errors pass silently.
 */
export function reportContentError(access: RepositoryAccess, operation: string, error: unknown): void {
  if (!(error instanceof GitContentError)) return;
  access.logger.warn({ projectId: access.projectId, gitDir: access.gitDir, operation, problem: error.detail }, `git ${operation} refused: the repository holds ${error.detail}`);
}

/** Runs a read, logging it (reportContentError) when it fails on the repository's content. */
export async function reportingContentErrors<T>(access: RepositoryAccess, operation: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    reportContentError(access, operation, error);
    throw error;
  }
}

/**
 * A stream that starts once a slot is granted. Destroying it (or the client's signal
 * aborting) leaves the queue or stops the source; the slot is released when it closes.
 */
export function heavyStream(access: RepositoryAccess, operation: string, start: () => Readable): Readable {
  const client = clientOf(access);
  const output = new PassThrough();
  let slot: WorkSlot | null = null;
  let source: Readable | null = null;
  const onAbort = (): void => {
    output.destroy(new ClientGoneError());
  };
  client.signal?.addEventListener('abort', onAbort, { once: true });
  output.on('close', () => {
    client.signal?.removeEventListener('abort', onAbort);
    source?.destroy();
    slot?.release();
  });
  access.work.acquire(client).then(
    (granted) => {
      slot = granted;
      if (output.destroyed) {
        granted.release();
        return;
      }
      try {
        source = start();
      } catch (error) {
        reportContentError(access, operation, error);
        output.destroy(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      source.on('error', (error) => {
        reportContentError(access, operation, error);
        output.destroy(error);
      });
      source.pipe(output);
    },
    (error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return output;
}

/** An iteration that runs in a slot from its first step to its end (or until it is dropped). */
export async function* heavyIteration<T>(access: RepositoryAccess, operation: string, start: () => AsyncIterable<T>): AsyncGenerator<T> {
  const slot = await access.work.acquire(clientOf(access));
  try {
    yield* start();
  } catch (error) {
    reportContentError(access, operation, error);
    throw error;
  } finally {
    slot.release();
  }
}
