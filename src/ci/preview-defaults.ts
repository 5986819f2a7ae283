/**
 * The merged configuration as `runner exec --preview` prints it: the compiler's (includes,
 * `extends` and `!reference` resolved) with the defaults resolved too. Each job gets, for each
 * key it leaves unspecified (absent or empty) and its `inherit:default` takes, the value of
 * `default:` or of the top-level `image`, `services`, `before_script`, `after_script` and
 * `cache`, as the compiler gives them to it (a trigger job only `interruptible`: it runs on no
 * runner); then `default:` and those top-level keys are left out, since every job shows what it
 * takes. Global `variables` stay where they are, as GitLab's merged view keeps them.
 */
import { DEFAULTABLE_KEYS } from './entries/job.ts';
import { GLOBAL_KEYS, RESERVED_KEYS } from './entries/root.ts';
import { isPlainObject, type PlainObject } from './values.ts';

export function withDefaultsResolved(config: Record<string, unknown>): Record<string, unknown> {
  const defaults = defaultsOf(config);
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'default' || (GLOBAL_KEYS as readonly string[]).includes(key)) continue;
    resolved[key] = isJob(key, value) ? withDefaults(value, defaults) : value;
  }
  return resolved;
}

function defaultsOf(config: Record<string, unknown>): PlainObject {
  const fromDefault = isPlainObject(config.default) ? config.default : {};
  const defaults: PlainObject = {};
  for (const key of DEFAULTABLE_KEYS) {
    if (fromDefault[key] !== undefined && fromDefault[key] !== null) defaults[key] = fromDefault[key];
    else if ((GLOBAL_KEYS as readonly string[]).includes(key) && config[key] !== undefined && config[key] !== null) defaults[key] = config[key];
  }
  return defaults;
}

const isJob = (key: string, value: unknown): value is PlainObject => !RESERVED_KEYS.has(key) && !key.startsWith('.') && isPlainObject(value);

function withDefaults(job: PlainObject, defaults: PlainObject): PlainObject {
  const takes = inheritedDefaults(job.inherit);
  const keys = 'trigger' in job ? ['interruptible'] : DEFAULTABLE_KEYS;
  const resolved: PlainObject = { ...job };
  for (const key of keys) {
    const unspecified = resolved[key] === undefined || resolved[key] === null;
    if (unspecified && key in defaults && takes(key)) resolved[key] = defaults[key];
  }
  return resolved;
}

/** `inherit:default`: true or absent takes every default, false none, a list those named. */
function inheritedDefaults(inherit: unknown): (key: string) => boolean {
  const value = isPlainObject(inherit) ? inherit.default : undefined;
  if (value === false) return () => false;
  if (Array.isArray(value)) return (key) => value.includes(key);
  return () => true;
}
