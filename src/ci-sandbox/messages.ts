/** Messages between the compile pool (main thread) and a compile worker. */
import type { CompileContext, CompileResult, RepositoryReader } from '../ci/model.ts';

/** The reader methods a worker may call back for; the rest of the context travels as data. */
export type ReaderMethod = keyof RepositoryReader;
export const READER_METHODS: readonly ReaderMethod[] = ['readFile', 'listFiles', 'readProjectFile', 'lastCommitFor', 'changedPathsSince', 'readArtifactFile', 'readRemoteFile'];

export type PortableContext = Omit<CompileContext, 'files'>;

export type ToWorker =
  | { type: 'compile'; text: string; context: PortableContext; readers: ReaderMethod[] }
  | { type: 'read-result'; call: number; ok: true; value: unknown }
  | { type: 'read-result'; call: number; ok: false; message: string };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'read'; call: number; method: ReaderMethod; args: unknown[] }
  | { type: 'compiled'; result: CompileResult }
  /** The compile threw: `readerFailed` when a reader call failed first (the pool rethrows that error). */
  | { type: 'threw'; message: string; stack: string | undefined; readerFailed: boolean };
