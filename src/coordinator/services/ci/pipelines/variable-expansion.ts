import type { YamlVariable } from '../../../../ci/model.ts';

/** `$NAME` and `${NAME}`. */
const REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

/**
 * `$NAME` and `${NAME}` from the list (later entries win); unknown names expand to nothing, as
 * GitLab does, or with `keepUnknown` stay as written (GitLab's `expand_existing`); names in
 * `keep` always stay as written.
 */
export function expandVariables(
  text: string, variables: readonly Pick<YamlVariable, 'key' | 'value'>[], options: { keepUnknown?: boolean; keep?: ReadonlySet<string> } = {},
): string {
  const values = new Map(variables.map((variable) => [variable.key, variable.value]));
  return text.replace(REFERENCE, (match, braced: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    if (options.keep?.has(name)) return match;
    return values.get(name) ?? (options.keepUnknown ? match : '');
  });
}

/** The names `expandVariables` would expand in the text, in order (repeated as often as named). */
export function variableNames(text: string): string[] {
  return [...text.matchAll(REFERENCE)].map((match) => match[1] ?? match[2] ?? '');
}

/** What an expanded value is held to, so that values naming each other cannot grow without bound. */
const MAX_EXPANDED = 64 * 1024;

/**
 * As `expandVariables` (later entries win, an unknown name expands to nothing), each variable's
 * own references expanded first (GitLab's `sort_and_expand_all`): a `raw` one's value as it
 * is, and so is one in a reference cycle.
 */
export function expandVariablesNested(text: string, variables: readonly Pick<YamlVariable, 'key' | 'value' | 'raw'>[]): string {
  const byKey = new Map(variables.map((variable) => [variable.key, variable]));
  const expanded = new Map<string, string>();
  const expanding = new Set<string>();
  const valueOf = (name: string): string => {
    const known = expanded.get(name);
    if (known !== undefined) return known;
    const variable = byKey.get(name);
    if (variable === undefined) return '';
    if (variable.raw || expanding.has(name)) return variable.value;
    expanding.add(name);
    const value = replaceReferences(variable.value, valueOf).slice(0, MAX_EXPANDED);
    expanding.delete(name);
    expanded.set(name, value);
    return value;
  };
  return replaceReferences(text, valueOf);
}

function replaceReferences(text: string, valueOf: (name: string) => string): string {
  return text.replace(REFERENCE, (_match, braced: string | undefined, bare: string | undefined) => valueOf(braced ?? bare ?? ''));
}
