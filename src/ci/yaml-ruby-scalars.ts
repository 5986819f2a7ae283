/**
 * Plain scalars typed as Ruby's YAML (Psych, YAML 1.1) types them, which is what GitLab reads;
 * the yaml library's default is YAML 1.2's core schema. The differences that matter in CI
 * files: `yes`/`no`/`on`/`off` (any case) are booleans, `0755` is octal and `08` a string,
 * `1_000` and `1,000` are integers, a float needs a `.` (`1e3` is a string), and `1:30` is
 * a base-60 integer. Quoted scalars stay strings. A plain date (`2024-01-15`) or time
 * (`2024-01-15 10:00:00`) would be a Ruby Date or Time, which GitLab's loader does not permit:
 * it refuses the file ("Tried to load unspecified class: Date"), and so does this one.
 */
import { Scalar, type ScalarTag, type Tags } from 'yaml';
import { RubyFloat } from './values.ts';

const TAG = 'tag:yaml.org,2002:';
const REPLACED = new Set(['null', 'bool', 'int', 'float'].map((name) => `${TAG}${name}`));

const nullTag: ScalarTag = {
  tag: `${TAG}null`,
  default: true,
  identify: (value) => value === null || value === undefined,
  test: /^(?:~|[Nn][Uu][Ll][Ll])?$/,
  resolve: () => new Scalar(null),
};

const boolTag: ScalarTag = {
  tag: `${TAG}bool`,
  default: true,
  identify: (value) => typeof value === 'boolean',
  test: /^(?:yes|true|on|no|false|off)$/i,
  resolve: (source) => new Scalar(/^(?:yes|true|on)$/i.test(source)),
};

/** `1:30` is 1·60² + 30·60 (Psych counts the first part in hours, whatever the count of parts). */
const sexagesimalTag: ScalarTag = {
  tag: `${TAG}int`,
  default: true,
  identify: () => false,
  test: /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9]){1,2}(?:\.[0-9_]*)?$/,
  resolve(source) {
    const fraction = source.includes('.');
    const parts = source.split(':');
    let total = 0;
    parts.forEach((part, index) => {
      const digits = part.replace(/_/g, '');
      total += (fraction ? Number.parseFloat(digits) : Number.parseInt(digits, 10)) * 60 ** Math.abs(index - 2);
    });
    return new Scalar(total);
  },
};

const floatTag: ScalarTag = {
  tag: `${TAG}float`,
  default: true,
  identify: (value) => typeof value === 'number' && !Number.isInteger(value),
  test: /^(?:[-+]?(?:[0-9][0-9_,]*)?\.[0-9]*(?:[eE][-+][0-9]+)?|\.inf|-\.inf|\.nan)$/i,
  resolve(source) {
    const lower = source.toLowerCase();
    if (lower === '.inf') return new Scalar(Number.POSITIVE_INFINITY);
    if (lower === '-.inf') return new Scalar(Number.NEGATIVE_INFINITY);
    if (lower === '.nan') return new Scalar(Number.NaN);
    if (/^[-+]?\.$/.test(source)) return new Scalar(source);
    const value = Number.parseFloat(source.replace(/[,_]/g, ''));
    const text = rubyFloatText(value);
    return new Scalar(text === String(value) ? value : new RubyFloat(value, text));
  },
};

/** Ruby's `Float#to_s` of a finite float: fixed from 1e-4 up to 1e16, with a digit after the point. */
export function rubyFloatText(value: number): string {
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? 'Infinity' : '-Infinity';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const digits = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
    return `${digits}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  const fixed = String(value);
  return fixed.includes('.') ? fixed : `${fixed}.0`;
}

const intTag: ScalarTag = {
  tag: `${TAG}int`,
  default: true,
  identify: (value) => typeof value === 'number' && Number.isInteger(value),
  test: /^(?:[-+]?0b[01_,]+|[-+]?0[0-7_,]+|[-+]?(?:0|[1-9][0-9_,]*)|[-+]?0x[0-9a-fA-F_,]+)$/,
  resolve(source) {
    const text = source.replace(/[,_]/g, '');
    const sign = text.startsWith('-') ? -1 : 1;
    const digits = text.replace(/^[-+]/, '');
    let value: number;
    if (/^0b/i.test(digits)) value = Number.parseInt(digits.slice(2), 2);
    else if (/^0x/i.test(digits)) value = Number.parseInt(digits.slice(2), 16);
    else if (digits.length > 1 && digits.startsWith('0')) value = Number.parseInt(digits.slice(1), 8);
    else value = Number.parseInt(digits, 10);
    return new Scalar(Number.isNaN(value) ? source : sign * value);
  },
};

/** Psych's patterns for a Time and a Date (`ScalarScanner`): both load a class GitLab does not permit. */
const TIME = /^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$/;
const DATE = /^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$/;
export const DISALLOWED_CLASS_PREFIX = 'Tried to load unspecified class: ';

const timestampTag: ScalarTag = {
  tag: `${TAG}timestamp`,
  default: true,
  identify: () => false,
  test: new RegExp(`${TIME.source}|${DATE.source}`),
  resolve(source, onError) {
    onError(`${DISALLOWED_CLASS_PREFIX}${TIME.test(source) ? 'Time' : 'Date'}`);
    return source;
  },
};

/** The core schema's tags with its null, bool, int and float replaced by Psych's, and its timestamps refused. */
export function rubyScalarTags(tags: Tags): Tags {
  const kept = tags.filter((tag) => typeof tag === 'string' || !REPLACED.has(tag.tag));
  // `intTag` before `sexagesimalTag`: an explicit `!!int` takes the first tag of that name.
  return [...kept, nullTag, boolTag, intTag, floatTag, sexagesimalTag, timestampTag];
}
