import { invalidParam } from '../../../shared/errors.ts';
import type { Params } from '../../http/params.ts';
import { SETTINGS_SCHEMA, type SettingDefinition } from './schema.ts';

/** Visibility levels may also be given by their numeric value, as GitLab accepts. */
const VISIBILITY_LEVEL_NAMES: Record<string, string> = { '0': 'private', '10': 'internal', '20': 'public' };

/**
 * Reads the settings present in a request, typed per the schema table. Type and enum errors
 * answer 400 as GitLab's parameter validation does (`x is invalid`, `x does not have a valid
 * value`); unknown parameters are ignored. Bounds and cross-setting rules are checked later,
 * on the merged result.
 */
export function parseSettingChanges(params: Params): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const definition of SETTINGS_SCHEMA as readonly SettingDefinition[]) {
    const { name } = definition;
    if (!params.has(name)) continue;
    if (params.raw(name) === null) {
      if (definition.default === null) changes[name] = null;
      continue;
    }
    const value = parseOne(params, definition);
    if (value !== undefined) changes[name] = value;
  }
  return changes;
}

function parseOne(params: Params, definition: SettingDefinition): unknown {
  const { name } = definition;
  switch (definition.kind) {
    case 'boolean':
      return params.bool(name);
    case 'integer': {
      const value = params.int(name);
      if (value !== undefined) requireAllowed(definition, value);
      return value;
    }
    case 'decimal':
      return params.number(name);
    case 'string':
      return parseString(params, definition);
    case 'string_array':
      return parseStringArray(params, definition);
  }
}

function parseString(params: Params, definition: SettingDefinition): string | null | undefined {
  const value = params.string(definition.name);
  if (value === undefined) return undefined;
  if (definition.name === 'enabled_git_access_protocol' && (value === '' || value === 'nil')) return null;
  requireAllowed(definition, value);
  return value;
}

function parseStringArray(params: Params, definition: SettingDefinition): string[] | undefined {
  const items = params.stringArray(definition.name);
  if (items === undefined) return undefined;
  const cleaned = items.map((item) => item.trim()).filter((item) => item !== '');
  const normalized = definition.name === 'restricted_visibility_levels' ? cleaned.map((item) => VISIBILITY_LEVEL_NAMES[item] ?? item) : cleaned;
  for (const item of normalized) requireAllowed(definition, item);
  return [...new Set(normalized)];
}

function requireAllowed(definition: SettingDefinition, value: string | number): void {
  if (definition.values && !definition.values.includes(value)) throw invalidParam(definition.name, 'does not have a valid value');
}
