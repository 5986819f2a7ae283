import { invalidParam } from '../../../../shared/errors.ts';
import { SETTINGS_SCHEMA, type SettingDefinition } from './schema.ts';

/** Visibility levels may also be given by their numeric value, as GitLab accepts. */
const VISIBILITY_LEVEL_NAMES: Record<string, string> = { '0': 'private', '10': 'internal', '20': 'public' };

/** A setting's value as the request gave it, already typed by its kind; null clears. */
export type SettingValue = string | number | boolean | string[] | null;

/**
 * The changes of a request whose values are already typed per the schema table (the route
 * schema refuses type errors). Values outside a setting's allowed ones answer 400 as GitLab's
 * parameter validation does (`x does not have a valid value`); null clears a setting that may
 * be unset and is ignored for the others. Bounds and cross-setting rules are checked later,
 * on the merged result.
 */
export function parseSettingChanges(values: Readonly<Record<string, SettingValue | undefined>>): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const definition of SETTINGS_SCHEMA as readonly SettingDefinition[]) {
    const { name } = definition;
    const value = values[name];
    if (value === undefined) continue;
    if (value === null) {
      if (definition.default === null) changes[name] = null;
      continue;
    }
    const parsed = parseOne(definition, value);
    if (parsed !== undefined) changes[name] = parsed;
  }
  return changes;
}

function parseOne(definition: SettingDefinition, value: Exclude<SettingValue, null>): unknown {
  switch (definition.kind) {
    case 'boolean':
    case 'decimal':
      return value;
    case 'integer':
      if (typeof value === 'number') requireAllowed(definition, value);
      return value;
    case 'string':
      return typeof value === 'string' ? parseString(definition, value) : undefined;
    case 'string_array':
      return Array.isArray(value) ? parseStringArray(definition, value) : undefined;
  }
}

function parseString(definition: SettingDefinition, value: string): string | null {
  if (definition.name === 'enabled_git_access_protocol' && (value === '' || value === 'nil')) return null;
  requireAllowed(definition, value);
  return value;
}

function parseStringArray(definition: SettingDefinition, items: readonly string[]): string[] {
  const cleaned = items.map((item) => item.trim()).filter((item) => item !== '');
  const normalized = definition.name === 'restricted_visibility_levels' ? cleaned.map((item) => VISIBILITY_LEVEL_NAMES[item] ?? item) : cleaned;
  for (const item of normalized) requireAllowed(definition, item);
  return [...new Set(normalized)];
}

function requireAllowed(definition: SettingDefinition, value: string | number): void {
  if (definition.values && !definition.values.includes(value)) throw invalidParam(definition.name, 'does not have a valid value');
}
