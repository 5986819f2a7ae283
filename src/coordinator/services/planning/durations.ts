/**
 * GitLab's time-tracking durations (Gitlab::TimeTrackingFormatter over ChronicDuration):
 * 8-hour days, 5-day weeks, 4-week (20-day) months; a year is a calendar year of seconds,
 * as ChronicDuration counts it. A bare number is hours.
 */

const HOUR = 3600;
const DAY = 8 * HOUR;
const WEEK = 5 * DAY;
const MONTH = 4 * WEEK;
const YEAR = 31_557_600;

/** The largest duration (and total) kept: the columns are 32-bit integers. */
export const MAX_DURATION_SECONDS = 2_147_483_647;
/** Longer input is refused before it is read (GitLab's clients send a few characters). */
const MAX_DURATION_TEXT = 100;

const UNIT_SECONDS: ReadonlyMap<string, number> = new Map(
  (
    [
      [YEAR, ['y', 'yr', 'yrs', 'year', 'years']],
      [MONTH, ['mo', 'mos', 'month', 'months']],
      [WEEK, ['w', 'wk', 'wks', 'week', 'weeks']],
      [DAY, ['d', 'day', 'days']],
      [HOUR, ['h', 'hr', 'hrs', 'hour', 'hours']],
      [60, ['m', 'min', 'mins', 'minute', 'minutes']],
      [1, ['s', 'sec', 'secs', 'second', 'seconds']],
    ] as const
  ).flatMap(([seconds, names]) => names.map((name) => [name, seconds] as const)),
);

/** Units of the human form, largest first (ChronicDuration's short format with weeks). */
const OUTPUT_UNITS: ReadonlyArray<readonly [string, number]> = [['y', YEAR], ['mo', MONTH], ['w', WEEK], ['d', DAY], ['h', HOUR], ['m', 60], ['s', 1]];

/**
 * Seconds of a duration such as `1mo 2w 3d 4h 5m 6s`, `1h30m`, `1.5h`, `3` (hours) or `-1h`
 * (negative: time subtracted); null when it is not one, is over MAX_DURATION_SECONDS, or is
 * zero without `keepZero` (GitLab reads `0` as no duration unless told to keep it).
 */
export function parseDuration(text: string, options: { keepZero?: boolean } = {}): number | null {
  if (text.length > MAX_DURATION_TEXT) return null;
  let rest = text.trim().toLowerCase();
  let sign = 1;
  if (rest.startsWith('-')) {
    sign = -1;
    rest = rest.slice(1).trim();
  }
  // Words between amounts ("1 hour and 30 minutes", "1h, 30m") are separators only.
  const tokens = rest.replace(/,/g, ' ').split(/\s+|(?<=[a-z])(?=\d)|(?<=\d)(?=[a-z])/).filter((token) => token !== '' && token !== 'and');
  if (tokens.length === 0) return null;
  let total = 0;
  for (let index = 0; index < tokens.length; index += 1) {
    const amount = tokens[index]!;
    if (!/^(\d+(\.\d*)?|\.\d+)$/.test(amount)) return null;
    const unitName = tokens[index + 1];
    const unit = unitName === undefined ? undefined : UNIT_SECONDS.get(unitName);
    if (unitName !== undefined && unit === undefined && !/^[\d.]/.test(unitName)) return null;
    if (unit !== undefined) index += 1;
    total += Number(amount) * (unit ?? HOUR);
  }
  const seconds = Math.round(total);
  if (!Number.isFinite(seconds) || seconds > MAX_DURATION_SECONDS) return null;
  if (seconds === 0) return options.keepZero ? 0 : null;
  return sign * seconds;
}

/** GitLab's human form (`3h 30m`, `1w 1d`, `1mo 2w`); null for nothing (zero or less). */
export function humanDuration(seconds: number): string | null {
  if (seconds <= 0) return null;
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of OUTPUT_UNITS) {
    const amount = Math.floor(rest / size);
    if (amount > 0) parts.push(`${amount}${unit}`);
    rest -= amount * size;
  }
  return parts.join(' ');
}
