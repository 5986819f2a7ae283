/**
 * A zip file (dependency artifacts, cache) as a tar stream for Environment.copyIn, refusing
 * absolute paths and `..` (yauzl checks names too). A symlink passes whatever its target, as
 * gitlab-runner's extractor keeps it: the unpacker writes nothing through one that leaves
 * its destination.
 */
import { PassThrough, type Readable } from 'node:stream';
import tar from 'tar-stream';
import yauzl from 'yauzl';
import { safeRelativeName } from '../../../shared/safe-path.ts';

export class UnsafeZipEntryError extends Error {
  constructor(name: string, reason: string) {
    super(`refusing archive entry "${name}": ${reason}`);
    this.name = 'UnsafeZipEntryError';
  }
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: true, validateEntrySizes: true, strictFileNames: false }, (error, zip) => (error ? reject(error) : resolve(zip))),
  );
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => zip.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))));
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Streams the zip's entries as tar entries; the returned stream errors on the first unsafe entry. */
export async function zipAsTar(file: string): Promise<Readable> {
  const zip = await openZip(file);
  const pack = tar.pack();
  const out = new PassThrough();
  // Errors reach the consumer through `errored`/'error'; without a listener yet they must not crash the process.
  out.on('error', () => undefined);
  pack.pipe(out);
  let failed = false;
  const fail = (error: unknown): void => {
    if (failed) return;
    failed = true;
    if (zip.isOpen) zip.close();
    pack.destroy();
    out.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  pack.on('error', fail);
  zip.on('error', fail);
  zip.on('end', () => pack.finalize());
  zip.on('entry', (entry: yauzl.Entry) => {
    (async () => {
      const name = safeRelativeName(entry.fileName);
      if (name === null) throw new UnsafeZipEntryError(entry.fileName, 'the path leaves the destination');
      const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
      const kind = mode & 0o170000;
      const mtime = entry.getLastModDate();
      if (entry.fileName.endsWith('/') || kind === 0o040000) {
        if (name !== '') await addEntry(pack, { name: `${name}/`, type: 'directory', mode: mode & 0o7777 || 0o755, mtime });
      } else if (kind === 0o120000) {
        const target = (await readAll(await openEntry(zip, entry))).toString('utf8');
        if (target.includes('\0')) throw new UnsafeZipEntryError(entry.fileName, 'the symlink target holds a NUL byte');
        await addEntry(pack, { name, type: 'symlink', linkname: target, mode: 0o777, mtime });
      } else {
        const source = await openEntry(zip, entry);
        await new Promise<void>((resolve, reject) => {
          const sink = pack.entry({ name, type: 'file', size: entry.uncompressedSize, mode: mode & 0o7777 || 0o644, mtime }, (error) => (error ? reject(error) : resolve()));
          sink.on('error', reject);
          source.on('error', reject);
          source.pipe(sink as unknown as NodeJS.WritableStream);
        });
      }
      zip.readEntry();
    })().catch(fail);
  });
  zip.readEntry();
  return out;
}

function addEntry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0]): Promise<void> {
  return new Promise((resolve, reject) => {
    // Destroyed with the pack, the entry errors: the callback hears it, no unhandled 'error' event.
    const sink = pack.entry(header, (error) => (error ? reject(error) : resolve()));
    sink.on('error', () => undefined);
  });
}
