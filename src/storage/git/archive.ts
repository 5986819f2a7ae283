import { pipeline, Transform, type Readable } from 'node:stream';
import { invalidParam } from '../../shared/errors.ts';
import { heavyStream } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { streamGit } from './run.ts';
import { streamTool } from './tools.ts';
import type { GitArchiveFormat } from './types.ts';
import { isValidRevision } from './validate.ts';

const UNSAFE_PREFIX = /[\u0000-\u001f\u007f]|(^|\/)\.\.(\/|$)/;

/**
 * The HFS+ and NTFS checks make git refuse every `.git` look-alike entry (not only those of
 * this file system), so no archive carries one. git checks every path right after writing
 * the prefix directory's entry, so holding back the first bytes (HEAD_BYTES) makes a refused
 * tree fail the stream before any answer has started.
 */
const ARCHIVE_CONFIG = ['-c', 'core.protectHFS=true', '-c', 'core.protectNTFS=true'];
const HEAD_BYTES = 64 * 1024;

/** Compressors run as processes of their own (from the spawner, under `nice`, like git), and only ever see git's output. */
const COMPRESSORS: Partial<Record<GitArchiveFormat, string[]>> = {
  'tar.gz': ['gzip', '-n', '-c'],
  'tar.bz2': ['bzip2', '-c'],
};

/**
 * A streamed archive of `revision`, made once a heavy-work slot is free. Nothing is buffered
 * whole; a failure destroys the stream (with GitContentError when git refused an entry of
 * the tree), and destroying it kills git and the compressor.
 */
export function archiveStream(access: RepositoryAccess, revision: string, format: GitArchiveFormat, prefix: string): Readable {
  if (!isValidRevision(revision)) throw invalidParam('sha');
  const cleanPrefix = prefix.replace(/^\/+|\/+$/g, '');
  if (UNSAFE_PREFIX.test(cleanPrefix) || cleanPrefix.startsWith('-')) throw invalidParam('prefix');
  const prefixArgs = cleanPrefix ? [`--prefix=${cleanPrefix}/`] : [];
  const args = [...ARCHIVE_CONFIG, 'archive', `--format=${format === 'zip' ? 'zip' : 'tar'}`, ...prefixArgs, revision];
  const compressor = COMPRESSORS[format];
  return heavyStream(access, 'archive', () => {
    const source = holdHead(streamGit(access.gitDir, args, { lowPriority: true }));
    return compressor ? compress(source, compressor) : source;
  });
}

/** Passes `source` on once HEAD_BYTES have come or it ended: an early failure leaves nothing sent. */
function holdHead(source: Readable): Readable {
  const held: Buffer[] = [];
  let heldBytes = 0;
  let passing = false;
  const release = (stream: Transform): void => {
    passing = true;
    for (const chunk of held.splice(0)) stream.push(chunk);
  };
  const output = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (passing) return done(null, chunk);
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes >= HEAD_BYTES) release(this);
      done();
    },
    flush(done) {
      release(this);
      done();
    },
  });
  pipeline(source, output, () => undefined);
  return output;
}

/**
 * Pipes `source` through a compressor process (streamTool): a failure of either destroys the
 * output, and destroying the output stops both.
 */
function compress(source: Readable, command: readonly string[]): Readable {
  return streamTool(command, { input: source });
}
