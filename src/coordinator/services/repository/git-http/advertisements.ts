import { Readable } from 'node:stream';
import type { HttpBackendResponse } from '../../../../storage/git/http-backend.ts';

/** What a protocol v2 `GET info/refs?service=git-upload-pack` answers: small and fixed. */
interface Advertisement {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

const MAX_BODY_BYTES = 64 * 1024;
const MAX_REPOSITORIES = 1000;

/** Whether a `Git-Protocol` header asks for protocol version 2 (`version=2`, possibly among other keys). */
export function speaksV2(gitProtocol: string | undefined): boolean {
  return gitProtocol?.split(':').includes('version=2') ?? false;
}

/**
 * The protocol v2 capability advertisement of upload-pack per repository. Unlike v0's, it
 * lists no refs: it depends only on git's version, the repository's object format and the
 * configuration we pass, none of which change while the coordinator runs. Serving it from
 * memory spares every clone and fetch after the first one `git http-backend` and its
 * upload-pack (about 25 ms of process start here). Refs are read by the `ls-refs` POST,
 * which always runs git.
 */
export class UploadPackAdvertisements {
  private readonly known = new Map<string, Advertisement>();

  /** The remembered answer for this repository, as a fresh response. */
  answer(repositoryPath: string): { status: number; headers: Record<string, string>; body: Readable } | undefined {
    const advertisement = this.known.get(repositoryPath);
    if (!advertisement) return undefined;
    return { status: advertisement.status, headers: { ...advertisement.headers }, body: Readable.from([advertisement.body]) };
  }

  /** Reads the backend's answer whole (it is small), remembers it when git succeeded, and answers it. */
  async remember(repositoryPath: string, response: HttpBackendResponse, headers: Record<string, string>) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.kill();
        throw new Error('git http-backend sent an oversized protocol v2 advertisement');
      }
      chunks.push(chunk);
    }
    const { exitCode } = await response.finished;
    const advertisement = { status: response.status, headers, body: Buffer.concat(chunks) };
    if (exitCode === 0 && response.status === 200) {
      if (this.known.size >= MAX_REPOSITORIES) this.known.delete(this.known.keys().next().value as string);
      this.known.set(repositoryPath, advertisement);
    }
    return { status: advertisement.status, headers: { ...headers }, body: Readable.from([advertisement.body]) };
  }
}
