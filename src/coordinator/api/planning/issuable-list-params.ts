import { Type } from '#deps/typebox';
import { invalidParam, invalidParams } from '../../../shared/errors.ts';
import { Param } from '../../http/gitlab-params.ts';
import { emojiName } from '../../services/planning/award-emoji-names.ts';

/** What the issue and merge request lists share: `labels`, `search` with `in`, and the `not[...]` filters both take. */

/** `None`, `Any` or a value, as GitLab's filters read them. */
export function anyOrNone(value: string): 'none' | 'any' | undefined {
  const lowered = value.toLowerCase();
  if (lowered === 'none' || lowered === 'no+label' || lowered === 'no label' || lowered === 'no milestone') return 'none';
  return lowered === 'any' ? 'any' : undefined;
}

export const blankless = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

/** A user id, `None` or `Any` (`assignee_id`, `reviewer_id`). */
export function userFilter(name: string, value: string | undefined): number | 'none' | 'any' | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = anyOrNone(value) ?? (/^\d{1,9}$/.test(value) ? Number(value) : undefined);
  if (parsed === undefined) throw invalidParam(name);
  return parsed;
}

/** GitLab's CommaSeparatedToArray: `labels=a,b`, `labels[]=a&labels[]=b` (each item a comma list too). */
export function labelNames(value: readonly string[] | undefined): string[] | undefined {
  const names = value?.flatMap((item) => item.split(',')).map((name) => name.trim()).filter((name) => name !== '');
  return names === undefined || names.length === 0 ? undefined : names;
}

/** `labels`: every name given, or `None` (no label) or `Any` among them, as GitLab's LabelFilter checks them. */
export function labelFilter(value: readonly string[] | undefined): string[] | 'none' | 'any' | undefined {
  const names = labelNames(value);
  if (names === undefined) return undefined;
  const wildcards = names.map(anyOrNone);
  if (wildcards.includes('none')) return 'none';
  return wildcards.includes('any') ? 'any' : names;
}

/** `in`: GitLab keeps the known columns of a comma list (`title`, `description`); none known means both. */
export function searchColumns(value: string | undefined): ('title' | 'description')[] | undefined {
  const columns = (value ?? '').split(',').map((name) => name.trim()).filter((name): name is 'title' | 'description' => name === 'title' || name === 'description');
  return columns.length === 0 ? undefined : [...new Set(columns)];
}

export function refuseBoth(query: object, pairs: readonly (readonly [string, string])[], prefix = ''): void {
  const given = query as Record<string, unknown>;
  for (const [first, second] of pairs) {
    if (given[first] !== undefined && given[second] !== undefined) {
      const name = (key: string) => (prefix === '' ? key : `${prefix}[${key}]`);
      throw invalidParams([{ name: `${name(first)}, ${name(second)}`, problem: 'are mutually exclusive' }]);
    }
  }
}

/** The `not[...]` keys both lists take (GitLab's negatable issuable params). */
export const NEGATABLE = {
  labels: Type.Optional(Param.strings({ description: 'Comma-separated names (or labels[]=…): leaves out what carries any of them' })),
  milestone: Type.Optional(Param.string({ description: 'A milestone title: leaves out what is in it (not what has no milestone)' })),
  author_id: Type.Optional(Param.integer({ description: 'Leaves out what this user opened' })),
  author_username: Type.Optional(Param.string({ description: 'Leaves out what this user opened (not with author_id)' })),
  assignee_id: Type.Optional(Param.integer({ description: 'Leaves out what is assigned to this user' })),
};

export interface NegatableParams {
  labels?: string[];
  milestone?: string;
  author_id?: number;
  author_username?: string;
  assignee_id?: number;
  assignee_username?: string | string[];
  my_reaction_emoji?: string;
}

/** `not[...]` as the services read it: usernames still names, the emoji by its canonical name. */
export function negatedCommon(not: NegatableParams) {
  refuseBoth(not, [['author_id', 'author_username'], ['assignee_id', 'assignee_username']], 'not');
  const emoji = blankless(not.my_reaction_emoji);
  const assigneeUsername = Array.isArray(not.assignee_username) ? not.assignee_username[0] : not.assignee_username;
  return {
    labels: labelNames(not.labels),
    milestone: blankless(not.milestone),
    authorId: not.author_id,
    authorUsername: blankless(not.author_username),
    assigneeId: not.assignee_id,
    assigneeUsername: blankless(assigneeUsername),
    myReactionEmoji: emoji === undefined ? undefined : (emojiName(emoji) ?? emoji),
  };
}
