import type { YamlVariable } from '../../../../ci/model.ts';
import { expandNested } from '../../../../ci/nested-expansion.ts';

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

/**
 * As `expandVariables` (later entries win, an unknown name expands to nothing), each variable's
 * own references expanded first (GitLab's `sort_and_expand_all`, src/ci/nested-expansion.ts):
 * a `raw` one's value as it is, and so is one in a reference cycle.
 */
export function expandVariablesNested(text: string, variables: readonly Pick<YamlVariable, 'key' | 'value' | 'raw'>[]): string {
  const byKey = new Map(variables.map((variable) => [variable.key, variable]));
  return expandNested(text, (name) => byKey.get(name));
}
