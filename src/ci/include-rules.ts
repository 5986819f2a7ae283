/** `include:rules` (GitLab 14.2): read here, evaluated by the compiler with the pipeline's variables. */
import { parseExpression } from './expression/index.ts';
import type { ChangesClause } from './job-config.ts';
import { isPlainObject, isStringArray, type PlainObject } from './values.ts';

/** An `include:rules` entry (GitLab 14.2): its clauses must all hold; `when: never` leaves the file out. */
export interface IncludeRule {
  if?: string;
  exists?: string[];
  changes?: ChangesClause;
  when?: 'never' | 'always';
}

/** Whether `include:rules` take the file: the first rule whose clauses hold decides; none, it is left out. */
export type IncludeRulesEvaluator = (rules: IncludeRule[]) => Promise<boolean>;

const RULE_KEYS = ['if', 'exists', 'changes', 'when'];

/** `include:rules`: undefined without them, null (an error reported) when they are invalid. */
export function readIncludeRules(entry: PlainObject, maxTokens: number, report: (problem: string) => void): IncludeRule[] | undefined | null {
  if (entry.rules === undefined || entry.rules === null) return undefined;
  const invalid = (problem: string): null => {
    report(problem);
    return null;
  };
  if (!Array.isArray(entry.rules)) return invalid('should be an array of hashes');
  const rules: IncludeRule[] = [];
  for (const raw of entry.rules) {
    if (!isPlainObject(raw)) return invalid('should be an array of hashes');
    const unknown = Object.keys(raw).filter((key) => !RULE_KEYS.includes(key));
    if (unknown.length > 0) return invalid(`contain unknown keys: ${unknown.join(', ')}`);
    const rule: IncludeRule = {};
    if (raw.if !== undefined) {
      if (typeof raw.if !== 'string' || !validExpression(raw.if, maxTokens)) return invalid('if invalid expression syntax');
      rule.if = raw.if;
    }
    if (raw.exists !== undefined) {
      const paths = pathList(raw.exists);
      if (!paths) return invalid('exists should be an array of strings');
      rule.exists = paths;
    }
    if (raw.changes !== undefined) {
      const changes = changesClause(raw.changes);
      if (typeof changes === 'string') return invalid(changes);
      rule.changes = changes;
    }
    if (raw.when !== undefined) {
      if (raw.when !== 'never' && raw.when !== 'always') return invalid('when should be never or always');
      rule.when = raw.when;
    }
    rules.push(rule);
  }
  return rules;
}

function pathList(value: unknown): string[] | null {
  return typeof value === 'string' ? [value] : isStringArray(value) ? value : null;
}

/** `changes`: paths, or `{paths, compare_to}` as a job rule's (GitLab's include rules take the same entry); else the problem. */
function changesClause(value: unknown): ChangesClause | string {
  const paths = pathList(value);
  if (paths) return { paths, compareTo: null };
  if (!isPlainObject(value)) return 'changes should be an array of strings';
  const unknown = Object.keys(value).filter((key) => key !== 'paths' && key !== 'compare_to');
  if (unknown.length > 0) return `changes contain unknown keys: ${unknown.join(', ')}`;
  if (!isStringArray(value.paths)) return 'changes paths should be an array of strings';
  const compareTo = value.compare_to ?? null;
  if (compareTo !== null && typeof compareTo !== 'string') return 'changes compare_to should be a string';
  return { paths: value.paths, compareTo };
}

function validExpression(text: string, maxTokens: number): boolean {
  try {
    parseExpression(text, maxTokens);
    return true;
  } catch {
    return false;
  }
}

