import type { IssueListFilter } from '../../../storage/types-planning.ts';

/** `due_date` of the issue lists (GitLab's IssuesFinder): `0` is no due date. */
export const DUE_DATE_FILTERS = ['0', 'any', 'today', 'tomorrow', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks'] as const;
export type DueDateFilter = (typeof DUE_DATE_FILTERS)[number];

const day = (date: Date): string => date.toISOString().slice(0, 10);
const utc = (year: number, month: number, date: number): Date => new Date(Date.UTC(year, month, date));

/**
 * The days a `due_date` filter keeps, from `today` (UTC): today, tomorrow, before today
 * (`overdue`), Monday to Sunday of this week, this month, or two weeks ago to the end of next
 * month — GitLab's `due_between` bounds, both inclusive.
 */
export function dueDateRange(filter: DueDateFilter, today: Date): NonNullable<IssueListFilter['due']> {
  const [year, month, date] = [today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()];
  switch (filter) {
    case '0':
      return 'none';
    case 'any':
      return 'any';
    case 'today':
      return { from: day(today), to: day(today) };
    case 'tomorrow': {
      const tomorrow = day(utc(year, month, date + 1));
      return { from: tomorrow, to: tomorrow };
    }
    case 'overdue':
      return { before: day(today) };
    case 'week': {
      const sinceMonday = (today.getUTCDay() + 6) % 7;
      return { from: day(utc(year, month, date - sinceMonday)), to: day(utc(year, month, date - sinceMonday + 6)) };
    }
    case 'month':
      return { from: day(utc(year, month, 1)), to: day(utc(year, month + 1, 0)) };
    case 'next_month_and_previous_two_weeks':
      return { from: day(utc(year, month, date - 14)), to: day(utc(year, month + 2, 0)) };
  }
}
