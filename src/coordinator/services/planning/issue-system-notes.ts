import type { UserRecord } from '../../../storage/types.ts';
import type { MilestoneRecord } from '../../../storage/types-planning.ts';
import type { IssueObserver, IssueSaved } from './issue-observers.ts';
import type { IssueView } from './issue-views.ts';
import type { SystemNotes } from './system-notes.ts';

/**
 * System notes for an updated issue, worded as GitLab's SystemNotes services word them, in the
 * order its update service writes them. A newly opened issue gets none.
 */
export class IssueSystemNotes implements IssueObserver {
  constructor(private readonly deps: { systemNotes: Pick<SystemNotes, 'add'> }) {}

  async issueSaved({ before, after, actor, at }: IssueSaved): Promise<void> {
    if (!before) return;
    const target = { type: 'Issue' as const, id: after.issue.id, project_id: after.issue.project_id };
    for (const body of issueChangeNotes(before, after)) await this.deps.systemNotes.add(target, actor.id, body, at);
  }
}

/** The bodies of the system notes for a change from `before` to `after`. */
export function issueChangeNotes(before: IssueView, after: IssueView): string[] {
  const [was, now] = [before.issue, after.issue];
  const bodies: string[] = [];
  if (was.state !== now.state) bodies.push(now.state === 'closed' ? 'closed' : 'reopened');
  if (was.title !== now.title) bodies.push(titleChange(was.title, now.title));
  if ((was.description ?? '') !== (now.description ?? '')) bodies.push('changed the description');
  if (Boolean(was.discussion_locked) !== Boolean(now.discussion_locked)) bodies.push(`${now.discussion_locked ? 'locked' : 'unlocked'} the discussion in this issue`);
  if (was.due_date !== now.due_date) bodies.push(now.due_date === null ? 'removed due date' : `changed due date to ${longDate(now.due_date)}`);
  if (was.milestone_id !== now.milestone_id) bodies.push(after.milestone ? `changed milestone to ${milestoneReference(after.milestone.milestone)}` : 'removed milestone');
  const labels = labelChange(before.labelIds, after.labelIds);
  if (labels) bodies.push(labels);
  const assignees = assigneeChange(before.assignees, after.assignees);
  if (assignees) bodies.push(assignees);
  if (was.confidential !== now.confidential) bodies.push(now.confidential ? 'made the issue confidential' : 'made the issue visible to everyone');
  return bodies;
}

/** `changed title from **a{-b-}** to **a{+c+}**`: the changed middle marked, as GitLab's inline diff marks it. */
export function titleChange(oldTitle: string, newTitle: string): string {
  const oldChars = [...oldTitle];
  const newChars = [...newTitle];
  let prefix = 0;
  while (prefix < oldChars.length && prefix < newChars.length && oldChars[prefix] === newChars[prefix]) prefix += 1;
  let suffix = 0;
  while (suffix < oldChars.length - prefix && suffix < newChars.length - prefix && oldChars[oldChars.length - 1 - suffix] === newChars[newChars.length - 1 - suffix]) suffix += 1;
  const mark = (chars: string[], symbol: '-' | '+') => {
    const middle = chars.slice(prefix, chars.length - suffix).join('');
    const marked = middle === '' ? '' : `{${symbol}${middle}${symbol}}`;
    return `${chars.slice(0, prefix).join('')}${marked}${chars.slice(chars.length - suffix).join('')}`;
  };
  return `changed title from **${mark(oldChars, '-')}** to **${mark(newChars, '+')}**`;
}

/** `added ~1 ~2 labels`, `removed ~3 label`, `added ~1 and removed ~2 labels` (one plural for all of them). */
export function labelChange(before: readonly number[], after: readonly number[]): string | undefined {
  const added = after.filter((id) => !before.includes(id));
  const removed = before.filter((id) => !after.includes(id));
  if (added.length + removed.length === 0) return undefined;
  const refs = (ids: number[]) => ids.map((id) => `~${id}`).join(' ');
  const parts = [...(added.length ? [`added ${refs(added)}`] : []), ...(removed.length ? [`removed ${refs(removed)}`] : [])];
  return `${parts.join(' and ')} ${added.length + removed.length === 1 ? 'label' : 'labels'}`;
}

/** `assigned to @a`, `unassigned @b`, `assigned to @a and @c and unassigned @b`. */
export function assigneeChange(before: readonly UserRecord[], after: readonly UserRecord[]): string | undefined {
  const added = after.filter((user) => !before.some((old) => old.id === user.id));
  const removed = before.filter((user) => !after.some((now) => now.id === user.id));
  const refs = (users: UserRecord[]) => sentence(users.map((user) => `@${user.username}`));
  const parts = [...(added.length ? [`assigned to ${refs(added)}`] : []), ...(removed.length ? [`unassigned ${refs(removed)}`] : [])];
  return parts.length ? parts.join(' and ') : undefined;
}

/** A project milestone by iid (`%3`); a group milestone by quoted title (`%"v1.0"`), by iid when the title has a quote. */
export function milestoneReference(milestone: Pick<MilestoneRecord, 'iid' | 'title' | 'group_id'>): string {
  return milestone.group_id !== null && !milestone.title.includes('"') ? `%"${milestone.title}"` : `%${milestone.iid}`;
}

/** Rails' `to_sentence`: `a`, `a and b`, `a, b, and c`. */
export function sentence(words: readonly string[]): string {
  if (words.length <= 2) return words.join(' and ');
  return `${words.slice(0, -1).join(', ')}, and ${words[words.length - 1]}`;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** `2026-11-30` as Rails' long date: `November 30, 2026`. */
function longDate(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return `${MONTHS[(month ?? 1) - 1]} ${day}, ${year}`;
}
