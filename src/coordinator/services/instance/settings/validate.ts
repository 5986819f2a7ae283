import { parseDuration } from '../../../../ci/durations.ts';
import { missingParam, validationFailed } from '../../../../shared/errors.ts';
import { MAX_SETTING_INTEGER, MAX_SETTING_ITEMS, MAX_SETTING_STRING_LENGTH, SETTINGS_SCHEMA, type SettingDefinition } from './schema.ts';

const DEFINITIONS = SETTINGS_SCHEMA as readonly SettingDefinition[];

export interface SettingsCandidate {
  /** What this request changes (already typed by parseSettingChanges). */
  changes: Record<string, unknown>;
  /** What administrators stored before (no defaults). */
  stored: Record<string, unknown>;
  /** Defaults, then stored, then changes. */
  merged: Record<string, unknown>;
}

/**
 * Checks the settings that would result from a change. First the "required when X is
 * enabled" rules (400 `{"error":"ide_url is missing"}`), then bounds and formats, reported
 * together as a failed model validation (400 `{"message":{"field":["reason"]}}`).
 */
export function validateSettings(candidate: SettingsCandidate): void {
  requireEnabledDependencies(candidate);
  const problems: Record<string, string[]> = {};
  for (const definition of DEFINITIONS) {
    const reason = lengthProblem(definition, candidate.changes[definition.name]) ?? problemWith(definition, candidate.merged);
    if (reason) problems[definition.name] = [reason];
  }
  if (Object.keys(problems).length > 0) throw validationFailed(problems);
}

/**
 * A required value counts only when an administrator gave it (now or earlier): a default such
 * as metrics_host "localhost" does not satisfy "metrics_host is required when metrics_enabled".
 */
function requireEnabledDependencies({ changes, stored, merged }: SettingsCandidate): void {
  for (const definition of DEFINITIONS) {
    if (!definition.requiredWhen || merged[definition.requiredWhen] !== true) continue;
    const given = definition.name in changes ? changes[definition.name] : stored[definition.name];
    if (isBlank(given)) throw missingParam(definition.name);
  }
}

function isBlank(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.trim() === '';
  if (Array.isArray(value)) return value.length === 0;
  return false;
}

function problemWith(definition: SettingDefinition, merged: Record<string, unknown>): string | undefined {
  const value = merged[definition.name];
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'number') return numericProblem(definition, value, merged);
  if (typeof value === 'string') return value === '' ? undefined : formatProblem(definition, value);
  if (Array.isArray(value) && definition.nonEmpty && value.length === 0) return "can't be blank";
  return undefined;
}

/** Lengths are checked on what a request changes, so a value stored before a limit existed does not block other changes. */
function lengthProblem(definition: SettingDefinition, value: unknown): string | undefined {
  const maximum = definition.maxLength ?? MAX_SETTING_STRING_LENGTH;
  if (typeof value === 'string' && value.length > maximum) return `is too long (maximum is ${maximum} characters)`;
  if (!Array.isArray(value)) return undefined;
  if (value.length > MAX_SETTING_ITEMS) return `is too long (maximum is ${MAX_SETTING_ITEMS} items)`;
  const long = value.find((item) => typeof item === 'string' && item.length > maximum);
  return long === undefined ? undefined : `has an item that is too long (maximum is ${maximum} characters)`;
}

function numericProblem(definition: SettingDefinition, value: number, merged: Record<string, unknown>): string | undefined {
  const { min, max, exclusive } = definition;
  if (min !== undefined) {
    if (exclusive && value <= min) return `must be greater than ${min}`;
    if (!exclusive && value < min) return `must be greater than or equal to ${min}`;
  }
  if (max !== undefined) {
    if (exclusive && value >= max) return `must be less than ${max}`;
    if (!exclusive && value > max) return `must be less than or equal to ${max}`;
  }
  if (definition.atLeastSetting) {
    const floor = merged[definition.atLeastSetting];
    if (typeof floor === 'number' && value < floor) return `must be greater than or equal to ${floor}`;
  }
  if (definition.kind === 'integer' && value > MAX_SETTING_INTEGER) return `must be less than or equal to ${MAX_SETTING_INTEGER}`;
  return undefined;
}

function formatProblem(definition: SettingDefinition, value: string): string | undefined {
  switch (definition.format) {
    case 'url':
      return isHttpUrl(value) ? undefined : 'must be a valid URL';
    case 'email':
      return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value) ? undefined : 'is invalid';
    case 'duration':
      return parseDuration(value) === null ? 'is not a correct duration' : undefined;
    default:
      return undefined;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
