/**
 * bench/exec part r's repository: a source tree of realistic size, so that what each job's
 * checkout costs shows. 2,500 tracked files in 122 directories (src/ with 10 modules of 5
 * parts, each with an internal/ below it; test/ and docs/ beside), 1–12 KB each, about 15 MB
 * in all, committed in one commit; the CI file in a second. bench/archive-files.ts writes the
 * same kind of tree (`writeSourceTree`: more files, a few large ones besides) without git.
 *
 * The contents are deterministic (a seeded generator per file: the same tree on every run
 * and machine) and text-like: lines of words from a small vocabulary, in an order of their own
 * in each file, so that zlib packs each about as well as source, and no file is a cheap delta
 * of another (which would make git's packs unrealistically small).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const FILES = 2500;
const MIN_BYTES = 1024;
const MAX_BYTES = 12 * 1024;
const WORDS = [
  'build', 'cache', 'stage', 'runner', 'job', 'trace', 'artifact', 'pipeline', 'commit', 'branch', 'merge', 'token',
  'project', 'group', 'member', 'issue', 'label', 'note', 'event', 'hook', 'queue', 'lease', 'state', 'status',
  'config', 'variable', 'secret', 'image', 'service', 'script', 'needs', 'rules', 'when', 'retry', 'timeout', 'tag',
  'release', 'deploy', 'environment', 'registry', 'archive', 'upload', 'download', 'checksum', 'digest', 'path', 'ref', 'sha',
];

export interface LargeRepository {
  dir: string;
  files: number;
  directories: number;
  bytes: number;
}

/** mulberry32: a small seeded generator of numbers in [0, 1), the same sequence for the same seed everywhere. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), state | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** The tree's directories, parents before children: src/module-M/part-P/internal, test/unit-U, docs/guide-G. */
function directoryList(): string[] {
  const list = ['src', 'test', 'docs'];
  for (let module = 0; module < 10; module += 1) {
    list.push(`src/module-${module}`);
    for (let part = 0; part < 5; part += 1) list.push(`src/module-${module}/part-${part}`, `src/module-${module}/part-${part}/internal`);
  }
  for (let unit = 0; unit < 6; unit += 1) list.push(`test/unit-${unit}`);
  for (let guide = 0; guide < 3; guide += 1) list.push(`docs/guide-${guide}`);
  return list;
}

/**
 * File `index`'s contents: its size drawn in 1–12 KB (smaller ones likelier, about 6 KB on
 * average) unless `fixedSize` is given, lines of code or prose by its kind.
 */
function contents(index: number, prose: boolean, fixedSize?: number): string {
  const next = generator(index + 1);
  const word = (): string => WORDS[Math.floor(next() * WORDS.length)]!;
  const drawnSize = MIN_BYTES + Math.floor(next() ** 1.2 * (MAX_BYTES - MIN_BYTES));
  const size = fixedSize ?? drawnSize;
  const lines: string[] = [];
  let length = 0;
  for (let line = 0; length < size; line += 1) {
    const text = prose
      ? `The ${word()} of each ${word()} is kept with its ${word()} until the ${word()} ends (${index}.${line}).`
      : `export const ${word()}_${word()}_${line} = ${word()}(${Math.floor(next() * 100000)}, '${word()}-${word()}');`;
    lines.push(text);
    length += text.length + 1;
  }
  return `${lines.join('\n').slice(0, size - 1)}\n`;
}

export interface SourceTreeOptions {
  files: number;
  /** Files of `largeBytes` each besides (a bundle, an image), spread over the directories. */
  largeFiles?: number;
  largeBytes?: number;
}

/** Writes the tree into `dir` (existing): `files` files of 1–12 KB in 122 directories, then the large ones. */
export function writeSourceTree(dir: string, options: SourceTreeOptions): Omit<LargeRepository, 'dir'> {
  const directories = directoryList();
  for (const directory of directories) mkdirSync(path.join(dir, directory), { recursive: true });
  let bytes = 0;
  for (let index = 0; index < options.files; index += 1) {
    const directory = directories[index % directories.length]!;
    const kind = directory.startsWith('docs') ? 'md' : directory.startsWith('test') ? 'test.ts' : 'ts';
    const text = contents(index, kind === 'md');
    writeFileSync(path.join(dir, directory, `${WORDS[index % WORDS.length]}-${index}.${kind}`), text);
    bytes += Buffer.byteLength(text);
  }
  const largeFiles = options.largeFiles ?? 0;
  for (let large = 0; large < largeFiles; large += 1) {
    const text = contents(options.files + large, false, options.largeBytes ?? 1024 * 1024);
    writeFileSync(path.join(dir, directories[(large * 37) % directories.length]!, `bundle-${large}.js`), text);
    bytes += Buffer.byteLength(text);
  }
  return { files: options.files + largeFiles, directories: directories.length, bytes };
}

const commit = (dir: string, message: string): void => {
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', message], { cwd: dir });
};

/** A new repository (under the temporary directory) with the tree committed, then `ci` as its .gitlab-ci.yml in a second commit. */
export function largeRepository(ci: string): LargeRepository {
  const dir = mkdtempSync(path.join(tmpdir(), 'gantry-bench-exec-large-'));
  try {
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    const tree = writeSourceTree(dir, { files: FILES });
    commit(dir, 'tree');
    writeFileSync(path.join(dir, '.gitlab-ci.yml'), ci);
    commit(dir, 'ci');
    return { dir, ...tree };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
