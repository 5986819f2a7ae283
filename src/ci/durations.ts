/**
 * Durations as GitLab reads them (ChronicDuration): `3 mins 4 sec`, `2h20min`, `1 week`,
 * `6 mos 1 day`, `47 yrs 6 mos and 4d`, `one hour`, a bare number of seconds, `hh:mm:ss`.
 *
 * Bounded: past MAX_DURATION_SECONDS a duration is unreadable (GitLab stores `now + duration`
 * in a timestamp column, which past its range fails), and so is text longer than any
 * duration needs, so that a hostile value costs nothing to reject.
 */
const UNIT_SECONDS: [RegExp, number][] = [
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, 60],
  [/^(h|hrs?|hours?)$/, 3600],
  [/^(d|days?)$/, 86_400],
  [/^(w|wks?|weeks?)$/, 604_800],
  [/^(mos?|months?)$/, 2_592_000],
  [/^(y|yrs?|years?)$/, 31_557_600],
];

/** 1,000 years: `now + duration` stays a four-digit-year date, which every store and client reads. */
export const MAX_DURATION_SECONDS = 1000 * 31_557_600;
const MAX_DURATION_TEXT = 256;

/** Seconds, or null when the value is not a duration or is longer than MAX_DURATION_SECONDS. */
export function parseDuration(value: unknown): number | null {
  const seconds = unboundedSeconds(value);
  return seconds !== null && seconds <= MAX_DURATION_SECONDS ? seconds : null;
}

function unboundedSeconds(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== 'string' || value.length > MAX_DURATION_TEXT) return null;
  const text = numerized(value.trim().toLowerCase());
  if (text === '') return null;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
  const clock = /^(\d+):(\d{1,2})(?::(\d{1,2}))?$/.exec(text);
  if (clock) {
    const [first, second, third] = [Number(clock[1]), Number(clock[2]), clock[3] === undefined ? null : Number(clock[3])];
    return third === null ? first * 60 + second : first * 3600 + second * 60 + third;
  }
  const cleaned = text.replace(/\band\b/g, ' ').replace(/,/g, ' ');
  const pattern = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;
  let total = 0;
  let consumed = '';
  let matched = false;
  for (const match of cleaned.matchAll(pattern)) {
    const unit = UNIT_SECONDS.find(([regexp]) => regexp.test(match[2] ?? ''));
    if (!unit) return null;
    total += Number(match[1]) * unit[1];
    consumed += match[0];
    matched = true;
  }
  if (!matched || consumed.replace(/\s/g, '') !== cleaned.replace(/\s/g, '')) return null;
  return total;
}

const UNITS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const NUMBER_WORDS = new RegExp(`\\b(?:(${TENS.join('|')})(?:[ -](${UNITS.slice(1, 10).join('|')}))?|(${UNITS.join('|')}))\\b`, 'g');

/**
 * Number words as digits, as ChronicDuration's Numerizer reads them (`one hour`, `twenty-one
 * days`); its hundreds, ordinals and fractions are not read.
 */
function numerized(text: string): string {
  return text.replace(NUMBER_WORDS, (_word, tens: string | undefined, unit: string | undefined, alone: string | undefined) =>
    String(tens === undefined ? UNITS.indexOf(alone ?? '') : (TENS.indexOf(tens) + 2) * 10 + (unit === undefined ? 0 : UNITS.indexOf(unit))),
  );
}

/** GitLab's longest job timeout (`Project::MAX_BUILD_TIMEOUT`, a month as Rails counts it). */
export const MAX_JOB_TIMEOUT_SECONDS = 2_629_746;

/** What is wrong with a `timeout:` as GitLab's Timeout entry says it (text only, at most a month), or null. */
export function timeoutProblem(value: unknown): string | null {
  const seconds = typeof value === 'string' ? parseDuration(value) : null;
  if (seconds === null) return 'should be a duration';
  return seconds > MAX_JOB_TIMEOUT_SECONDS ? 'should not exceed the limit' : null;
}

/** `artifacts:expire_in` also accepts `never` (13.0+). */
export function isValidExpireIn(value: unknown): boolean {
  return value === 'never' || parseDuration(value) !== null;
}
