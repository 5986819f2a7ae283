/**
 * The diff path before GitLab's diff limits (commit e094bf2), kept for bench/diff.ts to
 * measure against in the same run: git's whole output buffered, split into whole patches,
 * every diff answered whole and the JSON built as one string (what fastify did with the
 * route's return value).
 */
import { execa } from '#deps/execa';

interface OldFileDiff {
  old_path: string;
  new_path: string;
  a_mode: string;
  b_mode: string;
  new_file: boolean;
  renamed_file: boolean;
  deleted_file: boolean;
  diff: string;
}

const DIFF_OPTIONS = ['--no-color', '--no-ext-diff', '--no-textconv', '-M', '--full-index'];

/** The old compare answer's bytes for `from..to` (runGit buffered with a 1 GiB ceiling, as it did). */
export async function oldCompareAnswer(gitDir: string, from: string, to: string): Promise<Buffer> {
  const { stdout } = await execa('nice', ['-n', '10', 'git', `--git-dir=${gitDir}`, 'diff', '--raw', '-p', '-z', ...DIFF_OPTIONS, from, to], {
    encoding: 'buffer',
    stripFinalNewline: false,
    maxBuffer: 1024 * 1024 * 1024,
    stdin: 'ignore',
  });
  const diffs = parseRawPatch(Buffer.from(stdout)).map((diff) => ({
    diff: diff.diff,
    new_path: diff.new_path,
    old_path: diff.old_path,
    a_mode: diff.a_mode,
    b_mode: diff.b_mode,
    new_file: diff.new_file,
    renamed_file: diff.renamed_file,
    deleted_file: diff.deleted_file,
  }));
  return Buffer.from(JSON.stringify({ commit: null, commits: [], diffs, compare_timeout: false, compare_same_ref: false }));
}

interface RawEntry {
  oldMode: string;
  newMode: string;
  status: string;
  oldPath: string;
  newPath: string;
}

/**
 * Parses `git diff --raw -p -z`: NUL-separated raw records, then the patches in the same
 * order. Each patch starts with a `diff --git` line (a content line never does: content
 * lines start with ' ', '+' or '-').
 */
export function parseRawPatch(output: Buffer): OldFileDiff[] {
  const text = output.toString('utf8');
  const entries: RawEntry[] = [];
  let offset = 0;
  while (offset < text.length && text[offset] === ':') {
    const metaEnd = text.indexOf('\0', offset);
    const [oldMode = '', newMode = '', , , status = ''] = text.slice(offset + 1, metaEnd).split(' ');
    const firstEnd = text.indexOf('\0', metaEnd + 1);
    const firstPath = text.slice(metaEnd + 1, firstEnd);
    offset = firstEnd + 1;
    let secondPath = firstPath;
    if (status.startsWith('R') || status.startsWith('C')) {
      const secondEnd = text.indexOf('\0', offset);
      secondPath = text.slice(offset, secondEnd);
      offset = secondEnd + 1;
    }
    entries.push({ oldMode, newMode, status: status.charAt(0), oldPath: firstPath, newPath: secondPath });
  }
  const patchText = text.slice(offset).replace(/^\0/, '');
  const patches = splitPatches(patchText);
  return entries.map((entry, index) => ({
    old_path: entry.oldPath,
    new_path: entry.newPath,
    a_mode: entry.status === 'A' ? '0' : entry.oldMode,
    b_mode: entry.status === 'D' ? '0' : entry.newMode,
    new_file: entry.status === 'A',
    renamed_file: entry.status === 'R',
    deleted_file: entry.status === 'D',
    diff: patchBody(patches[index] ?? ''),
  }));
}

function splitPatches(text: string): string[] {
  if (!text.startsWith('diff --git ')) return [];
  const parts = text.split('\ndiff --git ');
  // Splitting took each patch's last newline; give it back.
  return parts.map((part, index) => `${index === 0 ? '' : 'diff --git '}${part}${index < parts.length - 1 ? '\n' : ''}`);
}

/** Drops the header lines: GitLab's diff starts at the first hunk or the "Binary files" line. */
function patchBody(patch: string): string {
  const lines = patch.split('\n');
  const start = lines.findIndex((line) => line.startsWith('@@') || line.startsWith('Binary files') || line.startsWith('GIT binary patch'));
  if (start < 0) return '';
  return lines.slice(start).join('\n');
}

