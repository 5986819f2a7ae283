import type { GitFileDiff } from '../../storage/git/types.ts';
import { html, type Markup } from './html.ts';

function lineClass(line: string): string {
  if (line.startsWith('@@')) return 'line hunk';
  if (line.startsWith('+')) return 'line added';
  if (line.startsWith('-')) return 'line removed';
  return 'line';
}

/**
 * One file of a diff as GitLab shows it: its paths and what happened to it, then the unified
 * diff with added and removed lines marked in words for screen readers too. A file git's
 * limits cut (GitLab's `too_large` and `collapsed`) says so instead; each patch is already
 * bounded by those limits.
 */
export function fileDiff(file: GitFileDiff, index: number): Markup {
  const change = file.new_file ? 'added' : file.deleted_file ? 'deleted' : file.renamed_file ? 'renamed' : 'modified';
  const name = file.renamed_file ? `${file.old_path} → ${file.new_path}` : file.new_path;
  const cut = file.too_large
    ? 'This file is too large to show: its changes are over the diff limit.'
    : file.collapsed
      ? 'This diff is collapsed: the changes are too large to show here.'
      : file.diff === ''
        ? 'No changes to show (a binary file or a mode change).'
        : null;
  const lines = cut === null ? file.diff.replace(/\n$/, '').split('\n') : [];
  return html`<section class="file-diff" id="diff-${index}">
<h3><span class="sha">${name}</span> <span class="muted">${change}</span></h3>
${cut === null
    ? html`<pre class="code diff">${lines.map((line) => html`<span class="${lineClass(line)}">${line.startsWith('+') && !line.startsWith('+++') ? html`<span class="visually-hidden">added </span>` : line.startsWith('-') && !line.startsWith('---') ? html`<span class="visually-hidden">removed </span>` : null}${line}</span>`)}</pre>`
    : html`<p class="notice">${cut}</p>`}
</section>`;
}
