/**
 * The variables an `include` sees (GitLab 14.2+): the pipeline's predefined variables, the
 * instance's, group's and project's, and the run's own, as `include:rules` see them. They
 * expand `$VAR`, `${VAR}` and `%VAR%` in an entry's `local`, `project`, `file`, `ref` and the
 * other location keys (an unknown one becomes empty, as GitLab's `ExpandVariables.expand`),
 * and an input's `expand_vars`. A masked variable's value is written as `x`s in every message
 * about an include, as GitLab's `MaskSecret` does, so a path built from a secret never shows it.
 */
import type { CompileContext } from './model.ts';
import { inputsFromContext, predefinedPipelineVariables } from './pipeline-variables.ts';
import { applicableUserVariables } from './user-variables.ts';

export interface IncludeVariable {
  value: string;
  masked: boolean;
}

export interface IncludeVariables {
  lookup(name: string): IncludeVariable | undefined;
  /** `text` with every masked variable's value replaced by as many `x`s. */
  mask(text: string): string;
}

const VARIABLE_REFERENCE = /\$([A-Za-z_][A-Za-z0-9_]*)|\$\{([A-Za-z_][A-Za-z0-9_]*)\}|%([A-Za-z_][A-Za-z0-9_]*)%/g;

/** Each reference in `text` replaced by `replacement(name, reference)`; one pass, linear in `text`. */
export function replaceVariableReferences(text: string, replacement: (name: string, reference: string) => string): string {
  if (!text.includes('$') && !text.includes('%')) return text;
  return text.replace(VARIABLE_REFERENCE, (reference, plain?: string, braced?: string, percent?: string) => replacement(plain ?? braced ?? percent ?? '', reference));
}

/** Built at the first use: most pipelines' includes name no variable. */
export function includeVariables(context: CompileContext): IncludeVariables {
  let byName: Map<string, IncludeVariable> | undefined;
  let maskedValues: string[] | undefined;
  const all = (): Map<string, IncludeVariable> => {
    if (byName) return byName;
    const inputs = inputsFromContext(context);
    byName = new Map();
    for (const variable of predefinedPipelineVariables(inputs)) byName.set(variable.key, { value: variable.value, masked: false });
    for (const variable of applicableUserVariables(context.variables ?? [], inputs.refProtected)) byName.set(variable.key, { value: variable.value, masked: variable.masked === true });
    return byName;
  };
  return {
    lookup: (name) => all().get(name),
    mask: (text) => {
      maskedValues ??= [...all().values()].filter((variable) => variable.masked && variable.value !== '').map((variable) => variable.value);
      return maskedValues.reduce((masked, secret) => masked.split(secret).join('x'.repeat(secret.length)), text);
    },
  };
}

/** GitLab's `ExpandVariables.expand`: known references replaced by their values, unknown ones by nothing. */
export function expandIncludeText(text: string, variables: IncludeVariables): string {
  return replaceVariableReferences(text, (name) => variables.lookup(name)?.value ?? '');
}
