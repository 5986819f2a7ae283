/**
 * GitLab's `ExpandVariables.expand` over variables sorted and expanded first: `$VAR`, `${VAR}`
 * and `%VAR%` replaced by the variable's value, its own references expanded first (a `raw`
 * one's value as it is), an unknown one by nothing. Each variable is expanded once (memoized);
 * a reference cycle leaves the variables in it unexpanded, as GitLab's sort does; every
 * expanded value is held to `MAX_EXPANDED` characters, so values that double each other cannot
 * grow without bound.
 */
import { replaceVariableReferences } from './include-variables.ts';

const MAX_EXPANDED = 64 * 1024;

export interface ExpandableVariable {
  value: string;
  raw?: boolean;
}

export function expandNested(text: string, lookup: (name: string) => ExpandableVariable | undefined): string {
  return expandWith(text, lookup, false);
}

/**
 * GitLab's `ExpandVariables.expand_existing` over the variables expanded first (the rules'
 * `changes` paths and `compare_to`): as `expandNested`, but a reference to a variable that is
 * not set stays as written, in the text and in the values alike.
 */
export function expandExisting(text: string, lookup: (name: string) => ExpandableVariable | undefined): string {
  return expandWith(text, lookup, true);
}

function expandWith(text: string, lookup: (name: string) => ExpandableVariable | undefined, keepUnknown: boolean): string {
  const expanded = new Map<string, string>();
  const expanding = new Set<string>();
  const valueOf = (name: string, reference: string): string => {
    const known = expanded.get(name);
    if (known !== undefined) return known;
    const variable = lookup(name);
    if (variable === undefined) return keepUnknown ? reference : '';
    if (variable.raw || expanding.has(name)) return variable.value;
    expanding.add(name);
    const value = replaceVariableReferences(variable.value, valueOf).slice(0, MAX_EXPANDED);
    expanding.delete(name);
    expanded.set(name, value);
    return value;
  };
  return replaceVariableReferences(text, valueOf);
}
