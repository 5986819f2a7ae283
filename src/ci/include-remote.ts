/**
 * `include:remote` (and a bare `https://...` include): the file the reader fetches, with
 * GitLab's errors. The compiler does no I/O: the coordinator's reader fetches (with its time
 * and size budgets and its rule on local addresses); without a reader for it, remote includes
 * are refused as not supported.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { CompileLimits } from './limits.ts';
import type { RemoteFileResult, RepositoryReader } from './model.ts';
import { TOO_BIG_MESSAGE } from './yaml-loader.ts';

/** The file's text, or null after reporting why there is none through `error`. */
export async function readRemote(
  url: string,
  integrity: string | null,
  reader: RepositoryReader,
  limits: CompileLimits,
  error: (message: string) => void,
): Promise<string | null> {
  if (!validAddress(url)) {
    error(`Remote file \`${url}\` does not have a valid address!`);
    return null;
  }
  if (!reader.readRemoteFile) {
    error(`Remote include \`${JSON.stringify({ remote: url })}\` is not supported by this coordinator!`);
    return null;
  }
  const answer = await reader.readRemoteFile(url);
  if (answer.status === 'found') {
    if (Buffer.byteLength(answer.content) > limits.maxFileBytes) {
      error(TOO_BIG_MESSAGE);
      return null;
    }
    if (integrity !== null && !intact(answer.content, integrity)) {
      error(`Remote file \`${url}\` failed integrity check!`);
      return null;
    }
    return answer.content;
  }
  error(failureMessage(url, answer));
  return null;
}

function failureMessage(url: string, answer: Exclude<RemoteFileResult, { status: 'found' }>): string {
  switch (answer.status) {
    case 'too-big':
      return TOO_BIG_MESSAGE;
    case 'http-code':
      return `Remote file \`${url}\` could not be fetched because of HTTP code \`${answer.code}\` error!`;
    case 'timeout':
      return `Remote file \`${url}\` could not be fetched because of a timeout error!`;
    case 'socket-error':
      return `Remote file \`${url}\` could not be fetched because of a socket error!`;
    case 'http-error':
      return `Remote file \`${url}\` could not be fetched because of HTTP error!`;
    case 'refused':
      return `Remote file could not be fetched because ${answer.reason}!`;
  }
}

/** `integrity: sha256-<base64>` (GitLab 17.9): the file's SHA-256 must be that one. */
function intact(content: string, integrity: string): boolean {
  const expected = Buffer.from(integrity.replace(/^sha256-/, ''));
  const actual = Buffer.from(createHash('sha256').update(content).digest('base64'));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** GitLab's `UrlSanitizer.valid?` for what can be fetched here: an http or https URL. */
function validAddress(url: string): boolean {
  try {
    const parsed = new URL(url.trim());
    return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  } catch {
    return false;
  }
}
