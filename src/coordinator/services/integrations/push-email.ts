import type { GitCommit, GitFileDiff, GitRepository } from '../../../storage/git/types.ts';

/** Commits listed in one push email; more are counted, not listed. */
export const PUSH_EMAIL_MAX_COMMITS = 100;
/** Bytes of diff text in one push email; the rest is cut with a note. */
export const PUSH_EMAIL_MAX_DIFF_BYTES = 256 * 1024;
/** Files named in the changed-files summary. */
const MAX_SUMMARY_FILES = 1000;

const ZERO_SHA = '0'.repeat(40);

export interface PushEmailInput {
  projectPath: string;
  projectUrl: string;
  ref: string;
  before: string;
  after: string;
  pusherName: string;
  disableDiffs: boolean;
}

export interface PushEmailContent {
  subject: string;
  text: string;
  /** The newest commit's author (`send_from_committer_email`). */
  headCommitter: { name: string; email: string } | null;
}

/**
 * GitLab's "emails on push" message: who pushed what where, the commits (newest first), the
 * changed files and, unless `disableDiffs`, the diffs (cut at PUSH_EMAIL_MAX_DIFF_BYTES). A new
 * ref shows its head commit against its parent; a deleted ref says so.
 */
export async function buildPushEmail(repository: Pick<GitRepository, 'compare' | 'commit' | 'commitDiff'>, input: PushEmailInput): Promise<PushEmailContent> {
  const kind = input.ref.startsWith('refs/tags/') ? 'tag' : 'branch';
  const name = input.ref.replace(/^refs\/(heads|tags)\//, '');
  const prefix = `[Git][${input.projectPath}]`;
  if (input.after === ZERO_SHA) {
    return { subject: `${prefix} Deleted ${kind} ${name}`, text: `${input.pusherName} deleted ${kind} ${name} at ${input.projectPath}\n`, headCommitter: null };
  }
  const { commits, diffs } = await changesOf(repository, input);
  const lines: string[] = [];
  const verb = input.before === ZERO_SHA ? `pushed new ${kind}` : `pushed to ${kind}`;
  lines.push(`${input.pusherName} ${verb} ${name} at ${input.projectPath}`, '', `${input.projectUrl}/-/compare/${input.before.slice(0, 8)}...${input.after.slice(0, 8)}`, '');
  lines.push('Commits:', '');
  for (const commit of commits.slice(0, PUSH_EMAIL_MAX_COMMITS)) {
    lines.push(`${commit.id.slice(0, 8)} by ${commit.author.name} at ${commit.author.date}`, '', indent(commit.message.trimEnd()), '');
  }
  if (commits.length > PUSH_EMAIL_MAX_COMMITS) lines.push(`… and ${commits.length - PUSH_EMAIL_MAX_COMMITS} more commits`, '');
  const files: GitFileDiff[] = [];
  const diffText: string[] = [];
  let diffBytes = 0;
  let cut = false;
  try {
    for await (const file of diffs) {
      if (files.length < MAX_SUMMARY_FILES) files.push(file);
      if (input.disableDiffs || cut) continue;
      const chunk = `--- ${file.old_path}\n+++ ${file.new_path}\n${file.diff}`;
      if (diffBytes + Buffer.byteLength(chunk) > PUSH_EMAIL_MAX_DIFF_BYTES) cut = true;
      else {
        diffText.push(chunk);
        diffBytes += Buffer.byteLength(chunk);
      }
    }
  } finally {
    diffs.close();
  }
  lines.push('---', '', `${files.length} changed file${files.length === 1 ? '' : 's'}:`, '');
  for (const file of files) lines.push(`- ${fileSummary(file)}`);
  if (!input.disableDiffs) {
    lines.push('', 'Changes:', '', ...diffText);
    if (cut || diffs.overflow) lines.push('', `(The diff is cut here: it is over ${PUSH_EMAIL_MAX_DIFF_BYTES / 1024} KiB or past the diff limits.)`);
  }
  const head = commits[0];
  const subject = commits.length === 1 && head ? `${prefix}[${name}] ${head.title}` : `${prefix}[${name}] ${commits.length} commits: ${head?.title ?? ''}`.trimEnd();
  return { subject, text: `${lines.join('\n')}\n`, headCommitter: head ? { name: head.author.name, email: head.author.email } : null };
}

async function changesOf(repository: Pick<GitRepository, 'compare' | 'commit' | 'commitDiff'>, input: PushEmailInput) {
  if (input.before !== ZERO_SHA) {
    const comparison = await repository.compare(input.before, input.after, true);
    return { commits: comparison.commits, diffs: comparison.diffs };
  }
  const head = await repository.commit(input.after);
  const commits: GitCommit[] = head ? [head] : [];
  return { commits, diffs: await repository.commitDiff(input.after, { expanded: false }) };
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

function fileSummary(file: GitFileDiff): string {
  if (file.new_file) return `A ${file.new_path}`;
  if (file.deleted_file) return `D ${file.old_path}`;
  if (file.renamed_file) return `R ${file.old_path} → ${file.new_path}`;
  return `M ${file.new_path}`;
}
