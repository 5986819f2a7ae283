/**
 * Pipeline schedule timing: GitLab's five-field cron syntax in an IANA time zone, read by
 * croner (no parser of our own). Pure: the caller passes the clock.
 */
import { Cron } from 'croner';

/** Whether `timezone` names a time zone the platform knows (IANA names such as `Europe/Berlin`, `UTC`). */
export function isValidTimeZone(timezone: string): boolean {
  if (timezone.trim() === '' || timezone !== timezone.trim()) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

function parse(cron: string, timezone: string): Cron | undefined {
  try {
    // Without a function croner schedules nothing: the object only answers questions.
    return new Cron(cron.trim(), { timezone, mode: '5-part' });
  } catch {
    return undefined;
  }
}

/** Whether `cron` is a valid five-field cron expression (or a nickname such as `@daily`). */
export function isValidCron(cron: string): boolean {
  return cron.trim() !== '' && !/[\r\n]/.test(cron) && parse(cron, 'UTC') !== undefined;
}

/**
 * The first time after `after` that `cron` fires in `timezone`, or null when it never does
 * again (`0 0 30 2 *`) or the expression or zone is invalid.
 */
export function nextRunAt(cron: string, timezone: string, after: Date): Date | null {
  if (!isValidCron(cron) || !isValidTimeZone(timezone)) return null;
  return parse(cron, timezone)?.nextRun(after) ?? null;
}
