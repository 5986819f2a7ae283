/**
 * Tar streams to and from a directory on this machine, with the checks of safe-path.ts: an
 * entry that would land outside the destination (absolute, `..`, through or as an escaping
 * symlink) is refused and nothing more is written.
 * Unpacking makes its directories, checks, links and modes, and packing reads each entry's
 * metadata, with synchronous calls (file data and directory listings still go through the
 * thread pool): each is a few microseconds on the local disk a job works on, where through the
 * pool it costs this thread several times that and then waits its turn in the event loop,
 * which in `runner exec` serves the coordinator too (an artifacts archive is some fifteen such
 * calls in a row). So are the data of small files (SMALL_FILE): a tree of thousands of them,
 * each opened, read or written and closed through the pool, spent most of its time in those
 * hops (a 2,600-file checkout packed in 2 s of CPU, against 0.35 s read in one call each).
 */
import { chmodSync, closeSync, constants, createReadStream, createWriteStream, linkSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, realpathSync, symlinkSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import tar from 'tar-stream';
import { LoopTurns } from '../shared/loop-turns.ts';
import { isInside, safeRelativeName, symlinkStaysInside } from '../shared/safe-path.ts';

type TarHeader = Parameters<tar.Pack['entry']>[0];
type TarEntry = tar.Extract extends AsyncIterable<infer T> ? T : never;

/**
 * Files up to this size are read (packing) or written (unpacking) whole, in synchronous calls:
 * a few microseconds each from the page cache, and at most this much held at once.
 */
export const SMALL_FILE = 64 * 1024;

interface Piped {
  pipe(destination: unknown): unknown;
  on(event: string, listener: (error?: Error) => void): unknown;
}

/** Pipes a Node or streamx readable into a writable and resolves once the writable closed. */
export function pump(source: object, destination: object): Promise<void> {
  const from = source as Piped;
  const to = destination as Piped;
  return new Promise((resolve, reject) => {
    from.on('error', (error) => reject(error));
    to.on('error', (error) => reject(error));
    to.on('close', () => resolve());
    from.pipe(to);
  });
}

export class UnsafeArchiveEntryError extends Error {
  constructor(name: string, reason: string) {
    super(`refusing archive entry "${name}": ${reason}`);
    this.name = 'UnsafeArchiveEntryError';
  }
}

export interface PackOptions {
  /** Rewrites each entry's permission bits. */
  adjustMode?: (mode: number) => number;
  /** `./` first, with the root's own mode, for an unpacker that sets its destination's mode from it. */
  withRoot?: boolean;
  /** The event loop's turns between the synchronous calls (default: LoopTurns'). */
  turns?: LoopTurns;
}

/** A tar stream of everything below `root` (names relative to it, directories end in `/`). */
export function packDirectory(root: string, options: PackOptions = {}): Readable {
  const adjustMode = options.adjustMode ?? ((mode: number) => mode);
  const pack = tar.pack();
  const turns = options.turns ?? new LoopTurns();
  const walk = async (relative: string): Promise<void> => {
    if (relative === '' && options.withRoot) {
      const stat = lstatSync(root);
      await addEntry(pack, { name: './', type: 'directory', mode: adjustMode(stat.mode & 0o7777), mtime: stat.mtime, uid: stat.uid, gid: stat.gid });
    }
    const entries = await readdir(path.join(root, relative), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      const absolute = path.join(root, name);
      const stat = lstatSync(absolute);
      const common = { mode: stat.isSymbolicLink() ? stat.mode & 0o7777 : adjustMode(stat.mode & 0o7777), mtime: stat.mtime, uid: stat.uid, gid: stat.gid };
      if (stat.isDirectory()) {
        await addEntry(pack, { ...common, name: `${name}/`, type: 'directory' });
        await walk(name);
      } else if (stat.isSymbolicLink()) {
        await addEntry(pack, { ...common, name, type: 'symlink', linkname: readlinkSync(absolute) });
      } else if (stat.isFile() && stat.size <= SMALL_FILE) {
        const data = readSmallFile(absolute, stat.size);
        await addEntry(pack, { ...common, name, type: 'file', size: data.length }, data);
      } else if (stat.isFile()) {
        const sink = pack.entry({ ...common, name, type: 'file', size: stat.size });
        await pump(createReadStream(absolute), sink);
      }
      await turns.pause();
    }
  };
  walk('').then(
    () => pack.finalize(),
    (error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))),
  );
  return pack as unknown as Readable;
}

/**
 * Resolves once the pack took the entry (with `data`, a file's bytes), which waits while its
 * reader is behind: a walk awaiting each entry holds at most one file's bytes.
 */
function addEntry(pack: tar.Pack, header: TarHeader, data?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error | null) => (error ? reject(error) : resolve());
    // A pack destroyed by its reader (an entry refused there) errors its pending entries: the
    // callback hears it, and the sink must not raise it again as an unhandled 'error'.
    const sink = data === undefined ? pack.entry(header, done) : pack.entry(header, data, done);
    sink.on('error', () => undefined);
  });
}

/** Up to `size` bytes of the file (what it held when it was stat'ed; a file that grew since is cut there, as its header says). */
export function readSmallFile(file: string, size: number): Buffer {
  const data = Buffer.allocUnsafe(size);
  const fd = openSync(file, 'r');
  try {
    let filled = 0;
    while (filled < size) {
      const read = readSync(fd, data, filled, size - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return data.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** Writes `data` whole to the file `fd` opened (by openForEntry), and closes it. */
function writeSmallFile(fd: number, data: Buffer): void {
  try {
    for (let written = 0; written < data.length; ) written += writeSync(fd, data, written, data.length - written);
  } finally {
    closeSync(fd);
  }
}

export interface ExtractOptions {
  /**
   * Symlinks are written whatever their target (a job's own files collected for an archive,
   * which keeps a link as a link, as gitlab-runner's archiver does); nothing is ever written
   * through one that leaves the destination.
   */
  anySymlinkTarget?: boolean;
  /** The event loop's turns between the synchronous calls (default: LoopTurns'). */
  turns?: LoopTurns;
}

/**
 * Unpacks `source` into `root` (created when missing). Rejects on the first unsafe entry.
 * `keep`, when given, chooses the entries to write (by their safe relative name).
 */
export async function extractInto(source: Readable, root: string, keep?: (name: string, type: string) => boolean, options: ExtractOptions = {}): Promise<void> {
  mkdirSync(root, { recursive: true });
  const realRoot = realpathSync(root);
  const extract = tar.extract();
  const lockedDirectories: LockedDirectory[] = [];
  // Parent directories found inside the destination, so that each is checked once.
  const verified = new Set<string>();
  const turns = options.turns ?? new LoopTurns();
  const done = (async () => {
    for await (const entry of extract) {
      await turns.pause();
      const name = safeRelativeName(entry.header.name);
      if (keep && name !== null && name !== '' && !keep(name, entry.header.type ?? 'file')) {
        entry.resume();
        continue;
      }
      await writeEntry(entry, realRoot, lockedDirectories, options, verified);
    }
    // As tar does: a directory's own mode last, deepest first, once nothing more goes into it.
    for (const { target, mode } of lockedDirectories.reverse()) chmodSync(target, mode);
  })();
  const failed = new Promise<never>((_resolve, reject) => {
    // The source may have failed before anyone listened (a zip refused at its first entry).
    if (source.errored) reject(source.errored);
    source.on('error', reject);
    source.on('close', () => source.errored && reject(source.errored));
    extract.on('error', reject);
  });
  done.catch(() => undefined);
  failed.catch(() => undefined);
  source.pipe(extract as unknown as Writable);
  try {
    await Promise.race([done, failed]);
  } finally {
    if (!source.destroyed) source.destroy();
  }
}

/** A directory whose mode keeps its owner from writing into it: set once the archive is unpacked. */
interface LockedDirectory {
  target: string;
  mode: number;
}

async function writeEntry(entry: TarEntry, realRoot: string, lockedDirectories: LockedDirectory[], options: ExtractOptions, verified: Set<string>): Promise<void> {
  const { header } = entry;
  const relative = safeRelativeName(header.name);
  if (relative === null) {
    entry.resume();
    throw new UnsafeArchiveEntryError(header.name, 'the path leaves the destination');
  }
  if (relative === '') {
    entry.resume();
    return;
  }
  const target = path.join(realRoot, relative);
  if (!makeParentInside(realRoot, path.dirname(target), verified)) {
    entry.resume();
    throw new UnsafeArchiveEntryError(header.name, 'a parent directory is a symlink that leaves the destination');
  }
  const mode = header.mode ?? 0o644;
  switch (header.type) {
    case 'directory': {
      const existing = lstatSync(target, { throwIfNoEntry: false });
      if (existing && !existing.isDirectory()) await clear(target);
      mkdirSync(target, { recursive: true });
      const wanted = mode & 0o7777 || 0o755;
      // A read-only directory (`chmod -R a-w`) would refuse its own entries, for a user but root.
      chmodSync(target, wanted | 0o700);
      if ((wanted & 0o700) !== 0o700) lockedDirectories.push({ target, mode: wanted });
      entry.resume();
      return;
    }
    case 'symlink': {
      const linkTarget = header.linkname ?? '';
      entry.resume();
      if (!options.anySymlinkTarget && !symlinkStaysInside(relative, linkTarget)) throw new UnsafeArchiveEntryError(header.name, `the symlink target "${linkTarget}" leaves the destination`);
      await clear(target);
      symlinkSync(linkTarget, target);
      // A directory checked before may be this link now.
      verified.clear();
      return;
    }
    case 'link': {
      entry.resume();
      const from = safeRelativeName(header.linkname ?? '');
      if (!from) throw new UnsafeArchiveEntryError(header.name, 'the hard link target leaves the destination');
      const source = path.join(realRoot, from);
      if (!isInside(realRoot, realpathOr(source))) throw new UnsafeArchiveEntryError(header.name, 'the hard link target leaves the destination');
      await rm(target, { force: true });
      linkSync(source, target);
      return;
    }
    case 'file':
    case 'contiguous-file':
    case undefined:
    case null: {
      // A small entry's bytes are all in before its file is opened: an archive cut short there leaves no descriptor open.
      const data = (header.size ?? 0) <= SMALL_FILE ? await readAll(entry) : null;
      const fd = await openForEntry(target, mode & 0o7777);
      if (data !== null) writeSmallFile(fd, data);
      else await pump(entry, createWriteStream(target, { fd }));
      chmodSync(target, mode & 0o7777);
      if (header.mtime) utimesSync(target, header.mtime, header.mtime);
      return;
    }
    default:
      entry.resume();
  }
}

/** An entry's bytes (at most SMALL_FILE: its header said so, and the parser holds it to that). */
async function readAll(entry: TarEntry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** Opened for writing, never through a link: O_NOFOLLOW refuses one that appeared since. */
const WRITE_NEW_OR_TRUNCATE = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/**
 * The file an entry is written to. A regular file already there with no other name (a cache
 * then the artifacts over the same paths) is truncated and rewritten where it is: a file made
 * anew costs far more than one rewritten on some file systems (ext4 without a journal soon
 * after many deletions). Anything else there goes first, as `rm -rf` would: a link, a
 * directory, a file with another name (writing through it would change that one too), or
 * one this user may not write.
 */
async function openForEntry(target: string, mode: number): Promise<number> {
  const existing = lstatSync(target, { throwIfNoEntry: false });
  if (existing?.isFile() && existing.nlink === 1) {
    try {
      return openSync(target, WRITE_NEW_OR_TRUNCATE, mode);
    } catch {
      // Not writable by this user: made anew below.
    }
  }
  await clear(target);
  return openSync(target, WRITE_NEW_OR_TRUNCATE, mode);
}

/**
 * Makes room for an entry at `target`, as `rm -rf` would: a file or link goes at once, a
 * directory (an entry of another kind where one was: rare, and maybe large) through the pool.
 */
async function clear(target: string): Promise<void> {
  const found = lstatSync(target, { throwIfNoEntry: false });
  if (!found) return;
  if (found.isDirectory()) await rm(target, { recursive: true, force: true });
  else unlinkSync(target);
}

/**
 * Makes `parent` (below `realRoot`) a directory, one component at a time, unless one of them
 * is a link that leaves `realRoot` or resolves nowhere: then nothing is made through it and the
 * answer is false. A `mkdir -p` first would make directories wherever such a link points.
 */
function makeParentInside(realRoot: string, parent: string, verified: Set<string>): boolean {
  if (parent === realRoot || verified.has(parent)) return true;
  let current = realRoot;
  for (const part of path.relative(realRoot, parent).split(path.sep)) {
    current = path.join(current, part);
    if (verified.has(current)) continue;
    const found = lstatSync(current, { throwIfNoEntry: false });
    if (!found) mkdirSync(current);
    else if (found.isSymbolicLink()) {
      const resolved = realpathOr(current);
      if (resolved === current || !isInside(realRoot, resolved)) return false;
      // A link to a file of the destination: the error `mkdir -p` gives.
      if (!lstatSync(resolved).isDirectory()) mkdirSync(current);
    } else if (!found.isDirectory()) {
      mkdirSync(current);
    }
    verified.add(current);
  }
  return true;
}

/** The real path of `file`, or `file` itself when it cannot be resolved (it does not exist yet). */
function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** A tar stream of a single file given its bytes (scripts handed to a container). */
export function singleFileTar(name: string, content: Buffer, mode = 0o755): Readable {
  const pack = tar.pack();
  pack.entry({ name, mode, size: content.length, mtime: new Date(), type: 'file' }, content);
  pack.finalize();
  return pack as unknown as Readable;
}

/**
 * A header read from an archive under another name (and link name), to be packed again. A PAX
 * record's `path` and `linkpath` (Docker's archives and tar-stream's own carry one for a name
 * that is long or not ASCII) would give the entry its old name back when packed, after the
 * new one: they go, and the name and link name carry them.
 */
export function renamedHeader(header: TarHeader, name: string, linkname = header.linkname ?? undefined): TarHeader {
  const { pax, ...rest } = header as TarHeader & { pax?: Record<string, string> | null };
  const kept = Object.entries(pax ?? {}).filter(([key]) => key !== 'path' && key !== 'linkpath');
  return { ...rest, name, ...(linkname === undefined ? {} : { linkname }), ...(kept.length > 0 ? { pax: Object.fromEntries(kept) } : {}) };
}

/** Re-exposes a tar stream with the first path component of every entry removed (docker's getArchive of a directory). */
export function stripFirstComponent(source: Readable): Readable {
  const extract = tar.extract();
  const pack = tar.pack();
  (async () => {
    for await (const entry of extract) {
      const name = entry.header.name.replace(/^\/?[^/]+\/?/, '');
      if (name === '') {
        entry.resume();
        continue;
      }
      const linkname = entry.header.type === 'link' && entry.header.linkname ? entry.header.linkname.replace(/^\/?[^/]+\//, '') : undefined;
      const header = renamedHeader(entry.header, name, linkname);
      await pump(entry, pack.entry(header));
    }
    pack.finalize();
  })().catch((error: unknown) => pack.destroy(error instanceof Error ? error : new Error(String(error))));
  source.pipe(extract as unknown as Writable);
  source.on('error', (error) => pack.destroy(error));
  return pack as unknown as Readable;
}
