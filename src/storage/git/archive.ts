import { PassThrough, pipeline, type Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { execa } from 'execa';
import { invalidParam } from '../../shared/errors.ts';
import { streamGit } from './run.ts';
import type { GitArchiveFormat } from './types.ts';
import { isValidRevision } from './validate.ts';

const UNSAFE_PREFIX = /[\u0000-\u001f\u007f]|(^|\/)\.\.(\/|$)/;

/**
 * A streamed archive of `revision`: git archive writes tar or zip, gzip happens in zlib and
 * bzip2 in the bzip2 CLI. Nothing is buffered whole; a failure destroys the stream.
 */
export function archiveStream(gitDir: string, revision: string, format: GitArchiveFormat, prefix: string): Readable {
  if (!isValidRevision(revision)) throw invalidParam('sha');
  const cleanPrefix = prefix.replace(/^\/+|\/+$/g, '');
  if (UNSAFE_PREFIX.test(cleanPrefix) || cleanPrefix.startsWith('-')) throw invalidParam('prefix');
  const gitFormat = format === 'zip' ? 'zip' : 'tar';
  const prefixArgs = cleanPrefix ? [`--prefix=${cleanPrefix}/`] : [];
  const source = streamGit(gitDir, ['archive', `--format=${gitFormat}`, ...prefixArgs, revision]);
  if (format === 'tar' || format === 'zip') return source;
  if (format === 'tar.gz') {
    const gzip = createGzip();
    pipeline(source, gzip, () => undefined);
    return gzip;
  }
  return compressWithBzip2(source);
}

function compressWithBzip2(source: Readable): Readable {
  const output = new PassThrough();
  const bzip2 = execa('bzip2', ['-c'], { stdin: 'pipe', buffer: false, encoding: 'buffer', reject: false });
  bzip2.stdout.pipe(output, { end: false });
  bzip2.stdin.on('error', () => undefined);
  pipeline(source, bzip2.stdin, (error) => {
    if (error) {
      bzip2.kill();
      output.destroy(error);
    }
  });
  void bzip2.then((result) => {
    if (result.exitCode === 0) output.end();
    else output.destroy(new Error(`bzip2 failed (${result.exitCode ?? result.signal ?? 'unknown'})`));
  });
  output.on('close', () => {
    if (bzip2.exitCode === null) bzip2.kill();
  });
  return output;
}
