/**
 * `workflow:name` → the pipeline's name (`CI_PIPELINE_NAME`), as GitLab's pipeline metadata
 * step makes it: `$VAR`, `${VAR}` and `%VAR%` expanded from the pipeline's variables (each
 * variable's own references expanded first, an unknown one to nothing), trimmed, and null when
 * nothing is left. A reference cycle leaves the variables in it unexpanded, as GitLab's sort
 * does; every expanded value is held to `MAX_EXPANDED` characters, so values that double each
 * other cannot grow without bound.
 */
import { MAX_PIPELINE_NAME } from './entries/root.ts';
import { replaceVariableReferences } from './include-variables.ts';

const MAX_EXPANDED = 64 * 1024;

export function pipelineName(template: string | null, lookup: (name: string) => string | undefined): string | null {
  if (template === null) return null;
  const expanded = new Map<string, string>();
  const expanding = new Set<string>();
  const valueOf = (name: string): string => {
    const known = expanded.get(name);
    if (known !== undefined) return known;
    const raw = lookup(name);
    if (raw === undefined) return '';
    if (expanding.has(name)) return raw;
    expanding.add(name);
    const value = replaceVariableReferences(raw, valueOf).slice(0, MAX_EXPANDED);
    expanding.delete(name);
    expanded.set(name, value);
    return value;
  };
  const name = replaceVariableReferences(template, valueOf).trim().slice(0, MAX_PIPELINE_NAME);
  return name === '' ? null : name;
}
