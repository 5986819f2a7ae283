/** `only`/`except`, `rules` (and `workflow:rules`), `needs`. */
import { ExpressionError, parseExpression } from '../expression/index.ts';
import { isValidRegexp } from '../expression/regexp.ts';
import type { PolicyConfig, RuleConfig, RuleWhen } from '../job-config.ts';
import { isPlainObject, isStringArray, scalarToString, type PlainObject } from '../values.ts';
import type { EntryChecker } from './checker.ts';
import { readAutoCancel } from './auto-cancel.ts';
import { readVariables } from './variables.ts';
import { checkRuleDelay, readChangesClause, readExistsClause } from './rule-clauses.ts';
import { readNeeds } from './needs.ts';

export function readPolicy(value: unknown, checker: EntryChecker, maxTokens: number): PolicyConfig | null | undefined {
  if (value === undefined || value === null) return null;
  const policy: PolicyConfig = { refs: null, variables: null, changes: null, kubernetes: null };
  if (Array.isArray(value)) {
    if (!validRefs(value)) {
      checker.configError(REFS_MESSAGE);
      return undefined;
    }
    return { ...policy, refs: value };
  }
  // GitLab's policy is a list or a hash: a lone string (`only: main`) is refused too.
  if (!isPlainObject(value)) {
    checker.sink.error(`${checker.location} has to be either an array of conditions or a hash`.toLowerCase(), checker.path);
    return undefined;
  }
  if (Object.keys(value).length === 0) {
    checker.configError("can't be blank");
    return undefined;
  }
  if (!checker.allowedKeys(value, ['refs', 'variables', 'changes', 'kubernetes'])) return undefined;
  if (value.refs !== undefined) {
    if (!Array.isArray(value.refs) || !validRefs(value.refs)) {
      checker.attributeError('refs', REFS_MESSAGE);
      return undefined;
    }
    policy.refs = value.refs;
  }
  if (value.variables !== undefined) {
    const variables = value.variables;
    if (!isStringArray(variables)) {
      checker.attributeError('variables', 'should be an array of strings');
      return undefined;
    }
    for (const expression of variables) {
      if (!validExpression(expression, maxTokens)) {
        checker.attributeError('variables', 'invalid expression syntax');
        return undefined;
      }
    }
    policy.variables = variables;
  }
  if (value.changes !== undefined) {
    const changes = value.changes;
    if (!isStringArray(changes)) {
      checker.attributeError('changes', 'should be an array of strings');
      return undefined;
    }
    policy.changes = changes;
  }
  if (value.kubernetes !== undefined) {
    if (value.kubernetes !== 'active') {
      checker.attributeError('kubernetes', `unknown value: ${String(value.kubernetes)}`);
      return undefined;
    }
    policy.kubernetes = 'active';
  }
  return policy;
}

const REFS_MESSAGE = 'should be an array of strings or regular expressions using re2 syntax';

function validRefs(refs: unknown[]): refs is string[] {
  return refs.every((ref) => typeof ref === 'string' && validRefPattern(ref));
}

/** A `/regex/flags` entry must be one RE2 accepts; any other string is a literal ref or keyword. */
function validRefPattern(ref: string): boolean {
  return !/^\/.*\/[ismU]*$/s.test(ref) || isValidRegexp(ref);
}

export function validExpression(text: string, maxTokens: number): boolean {
  try {
    parseExpression(text, maxTokens);
    return true;
  } catch (error) {
    if (error instanceof ExpressionError) return false;
    throw error;
  }
}

const RULE_WHEN: readonly RuleWhen[] = ['on_success', 'on_failure', 'always', 'never', 'manual', 'delayed'];
const WORKFLOW_WHEN: readonly RuleWhen[] = ['always', 'never'];
const RULE_KEYS = ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables', 'needs', 'interruptible'];
// GitLab accepts `start_in`, `allow_failure` and `needs` in workflow rules too, to no effect.
const WORKFLOW_RULE_KEYS = ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables', 'needs', 'auto_cancel'];

export function readRules(
  value: unknown,
  checker: EntryChecker,
  maxTokens: number,
  kind: 'job' | 'workflow',
): RuleConfig[] | null | undefined {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    // A job's rules are checked by the job (GitLab's Processable): `jobs:x rules should be ...`.
    if (kind === 'job') checker.sink.error(`${checker.location.replace(/:rules$/, '')} rules ${JOB_RULES_SHAPE}`.toLowerCase(), checker.path);
    else checker.configError('should be an array');
    return undefined;
  }
  // Nested lists of rules are read as one list (GitLab's Rules entry flattens them); a job's
  // may nest up to 10 levels (GitLab 15.x), workflow's any depth the YAML allows.
  const list = flattenRules(value, 1, kind === 'job' ? MAX_RULES_NESTING : Infinity);
  if (!list) {
    checker.sink.error(`${checker.location.replace(/:rules$/, '')} rules ${JOB_RULES_SHAPE}`.toLowerCase(), checker.path);
    return undefined;
  }
  // GitLab's rules entry must be present: an empty list is an error, not a job that never runs.
  if (list.length === 0) {
    checker.configError("can't be blank");
    return undefined;
  }
  const rules: RuleConfig[] = [];
  for (let index = 0; index < list.length; index++) {
    const rule = readRule(list[index], checker.child('rule', index), maxTokens, kind);
    if (!rule) return undefined;
    rules.push(rule);
  }
  return rules;
}

const JOB_RULES_SHAPE = 'should be an array containing hashes and arrays of hashes';
const MAX_RULES_NESTING = 10;

function flattenRules(items: unknown[], depth: number, maxDepth: number): unknown[] | null {
  const rules: unknown[] = [];
  for (const item of items) {
    if (!Array.isArray(item)) rules.push(item);
    else if (depth >= maxDepth) return null;
    else {
      const inner = flattenRules(item, depth + 1, maxDepth);
      if (!inner) return null;
      rules.push(...inner);
    }
  }
  return rules;
}

function readRule(written: unknown, checker: EntryChecker, maxTokens: number, kind: 'job' | 'workflow'): RuleConfig | null {
  if (!isPlainObject(written)) {
    checker.configError('should be a hash');
    return null;
  }
  if (!checker.allowedKeys(written, kind === 'job' ? RULE_KEYS : WORKFLOW_RULE_KEYS)) return null;
  if (Object.keys(written).length === 0) {
    checker.configError("can't be blank");
    return null;
  }
  // GitLab's rule drops keys written as null (`if:`, `when: null`, `changes: ~`): they are no clause, no setting.
  const value = withoutNullKeys(written);
  if (kind === 'job' && !checkRuleDelay(written, checker)) return null;
  const rule: RuleConfig = {
    if: null, changes: null, exists: null, when: null, startIn: null,
    allowFailure: null, variables: null, needs: null, interruptible: null, autoCancel: null,
  };
  if (value.if !== undefined) {
    if (typeof value.if !== 'string' || !validExpression(value.if, maxTokens)) {
      checker.attributeError('if', 'invalid expression syntax');
      return null;
    }
    rule.if = value.if;
  }
  if (value.changes !== undefined) {
    const changes = readChangesClause(value.changes, checker.child('changes'));
    if (!changes) return null;
    rule.changes = changes;
  }
  if (value.exists !== undefined) {
    const exists = readExistsClause(value.exists, checker.child('exists'));
    if (!exists) return null;
    rule.exists = exists;
  }
  if (value.when !== undefined) {
    const allowed = kind === 'job' ? RULE_WHEN : WORKFLOW_WHEN;
    if (!allowed.includes(value.when as RuleWhen)) {
      checker.attributeError('when', `unknown value: ${String(value.when)}`);
      return null;
    }
    rule.when = value.when as RuleWhen;
  }
  if (value.start_in !== undefined) rule.startIn = scalarToString(value.start_in);
  if (value.allow_failure !== undefined) {
    if (typeof value.allow_failure !== 'boolean') {
      checker.attributeError('allow_failure', 'should be a boolean value');
      return null;
    }
    rule.allowFailure = value.allow_failure;
  }
  if (value.interruptible !== undefined) {
    if (typeof value.interruptible !== 'boolean') {
      checker.attributeError('interruptible', 'should be a boolean value');
      return null;
    }
    rule.interruptible = value.interruptible;
  }
  if (value.variables !== undefined) {
    const variables = readVariables(value.variables, checker.child('variables'));
    if (!variables) return null;
    rule.variables = variables;
  }
  if (value.needs !== undefined) {
    const needs = readNeeds(value.needs, checker.child('needs'));
    if (!needs) return null;
    rule.needs = needs;
  }
  if (kind === 'workflow' && value.auto_cancel !== undefined) {
    const autoCancel = readAutoCancel(value.auto_cancel, checker.child('auto_cancel'));
    if (autoCancel === undefined) return null;
    rule.autoCancel = autoCancel;
  }
  return rule;
}

function withoutNullKeys(value: PlainObject): PlainObject {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== null));
}
