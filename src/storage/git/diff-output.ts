import { GitCommandError } from './run.ts';

/**
 * Incremental readers of `git diff --raw -p -z` output, fed chunk by chunk as git writes it.
 * Neither keeps more than a bounded amount of any line: a diff of any size (a 50 MB one-line
 * file included) is read in constant memory, apart from the patch text a caller asks to keep.
 */

/** One file of the raw section, a type change already split into a deletion and an addition. */
export interface RawDiffEntry {
  oldMode: string;
  newMode: string;
  /** git's status letter: A, D, M, R, C. */
  status: string;
  oldPath: string;
  newPath: string;
}

/** Longest raw token (a path) accepted; git itself refuses paths near PATH_MAX long to check out. */
const MAX_RAW_TOKEN = 1024 * 1024;

const NUL = 0;
const LF = 10;

function malformed(detail: string): GitCommandError {
  return new GitCommandError(['diff', '--raw', '-p', '-z'], 0, `unexpected output: ${detail}`);
}

/**
 * The raw section: `:<old mode> <new mode> <old id> <new id> <status>\0<path>\0[<new path>\0]`
 * per file, then one NUL before the patches. Entries go to `onEntry` as they complete.
 */
export class RawSectionReader {
  private token: Buffer[] = [];
  private tokenBytes = 0;
  private meta: string[] | null = null;
  private firstPath: string | null = null;

  constructor(private readonly onEntry: (entry: RawDiffEntry) => void) {}

  /** Consumes `chunk`; answers the offset at which the patches start, or null while the section goes on. */
  push(chunk: Buffer): number | null {
    let position = 0;
    while (position < chunk.length) {
      const end = chunk.indexOf(NUL, position);
      if (end < 0) {
        this.keep(chunk.subarray(position));
        return null;
      }
      // A token whole in this chunk is read in place; only one cut by a chunk's end is copied.
      let token: Buffer;
      if (this.token.length === 0) {
        if (end - position > MAX_RAW_TOKEN) throw malformed(`a raw record longer than ${MAX_RAW_TOKEN} bytes`);
        token = chunk.subarray(position, end);
      } else {
        this.keep(chunk.subarray(position, end));
        token = this.token.length === 1 ? this.token[0]! : Buffer.concat(this.token);
        this.token = [];
        this.tokenBytes = 0;
      }
      position = end + 1;
      if (this.take(token)) return position;
    }
    return null;
  }

  private keep(piece: Buffer): void {
    if (piece.length === 0) return;
    this.tokenBytes += piece.length;
    if (this.tokenBytes > MAX_RAW_TOKEN) throw malformed(`a raw record longer than ${MAX_RAW_TOKEN} bytes`);
    this.token.push(Buffer.from(piece));
  }

  /** True when the token ended the section. */
  private take(token: Buffer): boolean {
    if (this.meta === null) {
      if (token.length === 0) return true;
      if (token[0] !== 0x3a) throw malformed('a raw record that does not start with ":"');
      this.meta = token.toString('latin1', 1).split(' ');
      return false;
    }
    const [oldMode = '', newMode = '', , , status = ''] = this.meta;
    const path = token.toString('utf8');
    const letter = status.charAt(0);
    if ((letter === 'R' || letter === 'C') && this.firstPath === null) {
      this.firstPath = path;
      return false;
    }
    const oldPath = this.firstPath ?? path;
    this.meta = null;
    this.firstPath = null;
    if (letter === 'T') {
      // git prints a type change (file <-> symlink) as two patches, a deletion then an addition.
      this.onEntry({ oldMode, newMode: '0', status: 'D', oldPath, newPath: path });
      this.onEntry({ oldMode: '0', newMode, status: 'A', oldPath, newPath: path });
    } else {
      this.onEntry({ oldMode, newMode, status: letter, oldPath, newPath: path });
    }
    return false;
  }
}

/** One file's patch as read: its text up to the caller's limit, and what GitLab's limits count. */
export interface ScannedPatch {
  /** The patch from its first hunk (or binary notice) on; null once it grew past the kept size. */
  body: Buffer | null;
  /** Bytes of the patch (hunk headers included): what the per-file limits compare. */
  patchBytes: number;
  /** Lines and bytes of content lines (hunk headers excluded): what the totals add up. */
  contentLines: number;
  contentBytes: number;
}

/** Bytes enough to tell a line's kind: "GIT binary patch" is the longest prefix looked at. */
const HEAD_BYTES = 16;

type LineKind = 'header' | 'hunk' | 'content';

const EMPTY = Buffer.alloc(0);
const DIFF_GIT = Buffer.from('diff --git ');
const BINARY_FILES = Buffer.from('Binary files ');
const GIT_BINARY = Buffer.from('GIT binary patch');
const AT = 0x40;

interface FileState extends ScannedPatch {
  inBody: boolean;
  pieces: Buffer[];
}

/**
 * The patch section: `diff --git` starts each file, header lines follow (index, modes,
 * rename, ---/+++), then the body from the first `@@` or `Binary files` line on. The body is
 * kept while it is shorter than `keepBytes`; past that only its counts are. Lines are found
 * with Buffer.indexOf and told apart by their first bytes; a file's body is copied once per
 * chunk, not per line, so a 50 MB diff is scanned at close to memchr speed.
 */
export class PatchScanner {
  /** The start of a line cut by the end of a chunk, too short to tell its kind yet. */
  private stash: Buffer = EMPTY;
  /** The kind of the line being read; null at a line start. */
  private kind: LineKind | null = null;
  private current: FileState | null = null;
  /** Where the current file's body starts in the chunk being read (-1: not in this chunk). */
  private segment = -1;
  /** `diff --git` lines seen. */
  filesStarted = 0;

  constructor(private readonly keepBytes: number) {}

  /** Consumes `chunk`; answers the files it completed. */
  push(chunk: Buffer): ScannedPatch[] {
    const completed: ScannedPatch[] = [];
    this.segment = this.kind === 'hunk' || this.kind === 'content' ? 0 : -1;
    let position = 0;
    while (position < chunk.length) {
      if (this.kind === null) {
        const started = this.startLine(chunk, position, completed);
        if (started < 0) {
          position = chunk.length;
          break;
        }
        position = started;
      }
      const newline = chunk.indexOf(LF, position);
      const end = newline < 0 ? chunk.length : newline + 1;
      this.count(end - position);
      position = end;
      if (newline >= 0) this.kind = null;
    }
    this.closeSegment(chunk, chunk.length);
    return completed;
  }

  /** The output ended: answers the last file, if any. */
  finish(): ScannedPatch[] {
    const completed: ScannedPatch[] = [];
    if (this.stash.length > 0) {
      const line = this.stash;
      this.stash = EMPTY;
      this.classify(line, 0, completed);
      this.count(line.length);
      if (this.kind === 'hunk' || this.kind === 'content') this.keep(line);
    }
    if (this.current) completed.push(this.close(this.current));
    this.current = null;
    return completed;
  }

  /**
   * Tells the kind of the line starting at `position` and answers where its reading goes
   * on; -1 when the chunk ends before its kind can be told (its start is stashed).
   */
  private startLine(chunk: Buffer, position: number, completed: ScannedPatch[]): number {
    if (this.stash.length === 0) {
      const available = chunk.length - position;
      if (available < HEAD_BYTES && chunk.indexOf(LF, position) < 0) {
        this.closeSegment(chunk, position);
        this.stash = Buffer.from(chunk.subarray(position));
        return -1;
      }
      // A new file: the body read so far in this chunk belongs to the file it completes.
      if (matchesAt(chunk, position, DIFF_GIT)) this.closeSegment(chunk, position);
      this.classify(chunk, position, completed);
      this.openSegment(chunk, position);
      return position;
    }
    const newline = chunk.indexOf(LF, position);
    const wanted = HEAD_BYTES - this.stash.length;
    const end = newline >= 0 && newline < position + wanted ? newline + 1 : Math.min(chunk.length, position + wanted);
    const head = Buffer.concat([this.stash, chunk.subarray(position, end)]);
    if (head.length < HEAD_BYTES && head[head.length - 1] !== LF) {
      this.stash = head;
      return -1;
    }
    const stashed = this.stash;
    this.stash = EMPTY;
    this.classify(head, 0, completed);
    // The stashed bytes belong to this line: counted and kept like the rest of it.
    this.count(stashed.length);
    if (this.kind === 'hunk' || this.kind === 'content') this.keep(stashed);
    this.openSegment(chunk, position);
    return position;
  }

  /** Sets the kind of the line whose first bytes are at `buffer[offset]`; a `diff --git` line completes the file before it. */
  private classify(buffer: Buffer, offset: number, completed: ScannedPatch[]): void {
    if (matchesAt(buffer, offset, DIFF_GIT)) {
      if (this.current) completed.push(this.close(this.current));
      this.current = { body: null, pieces: [], patchBytes: 0, contentLines: 0, contentBytes: 0, inBody: false };
      this.filesStarted += 1;
      this.kind = 'header';
      return;
    }
    const file = this.current;
    if (file === null) throw malformed('a patch line before any "diff --git" line');
    const hunk = buffer[offset] === AT && buffer[offset + 1] === AT;
    if (!file.inBody) file.inBody = hunk || matchesAt(buffer, offset, BINARY_FILES) || matchesAt(buffer, offset, GIT_BINARY);
    this.kind = !file.inBody ? 'header' : hunk ? 'hunk' : 'content';
    if (this.kind === 'content') file.contentLines += 1;
  }

  /** Counts `bytes` of the current line toward its file. */
  private count(bytes: number): void {
    const file = this.current;
    if (file === null || this.kind === 'header' || this.kind === null) return;
    file.patchBytes += bytes;
    if (this.kind === 'content') file.contentBytes += bytes;
  }

  /** A body line starts a segment of the chunk; a header line ends the one open. */
  private openSegment(chunk: Buffer, position: number): void {
    const body = this.kind === 'hunk' || this.kind === 'content';
    if (body && this.segment < 0) this.segment = position;
    else if (!body) this.closeSegment(chunk, position);
  }

  private closeSegment(chunk: Buffer, end: number): void {
    if (this.segment < 0) return;
    if (end > this.segment) this.keep(chunk.subarray(this.segment, end));
    this.segment = -1;
  }

  /** Keeps body bytes while the file's patch is under the kept size. */
  private keep(bytes: Buffer): void {
    const file = this.current;
    if (file === null) return;
    if (file.patchBytes < this.keepBytes) file.pieces.push(Buffer.from(bytes));
    else if (file.pieces.length > 0) file.pieces = [];
  }

  private close(file: FileState): ScannedPatch {
    const kept = file.patchBytes < this.keepBytes;
    return { body: kept ? Buffer.concat(file.pieces) : null, patchBytes: file.patchBytes, contentLines: file.contentLines, contentBytes: file.contentBytes };
  }
}

function matchesAt(buffer: Buffer, offset: number, prefix: Buffer): boolean {
  if (buffer.length - offset < prefix.length) return false;
  for (let index = 0; index < prefix.length; index += 1) {
    if (buffer[offset + index] !== prefix[index]) return false;
  }
  return true;
}
