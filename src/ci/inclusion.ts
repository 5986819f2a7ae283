/** Decides, per job, whether it joins the pipeline and with which when/allow_failure. */
import { RuleClauseError, type ConditionContext } from './conditions.ts';
import type { JobConfig, PolicyConfig, RuleConfig } from './job-config.ts';
import type { InclusionOutcome, JobNeed, JobWhen, YamlVariable } from './model.ts';
import { mergeVariables } from './entries/variables.ts';

export interface JobOutcome {
  inclusion: InclusionOutcome;
  when: JobWhen;
  allowFailure: boolean;
  allowFailureExitCodes: number[] | null;
  startIn: string | null;
  variables: YamlVariable[];
  needs: JobNeed[] | null;
  interruptible: boolean | null;
  /** A rule that could not be evaluated (GitLab's "Failed to parse rule"): the job is left out, the pipeline fails. */
  ruleError?: string;
}

const DEFAULT_ONLY: PolicyConfig = { refs: ['branches', 'tags'], variables: null, changes: null, kubernetes: null };

export type Lookup = (name: string) => string | undefined;

/**
 * `withWorkflowRules`: the configuration has `workflow:rules`, which (as GitLab's Processable
 * does since 12.5) drop the default `only: [branches, tags]` of jobs that name no `only`.
 */
export async function evaluateJob(job: JobConfig, conditions: ConditionContext, lookup: Lookup, withWorkflowRules = false): Promise<JobOutcome> {
  const jobWhen = job.when ?? 'on_success';
  const base: JobOutcome = {
    inclusion: { included: true, decidedBy: 'default', matchedRule: null },
    when: jobWhen,
    allowFailure: job.allowFailure ?? jobWhen === 'manual',
    allowFailureExitCodes: job.allowFailureExitCodes,
    startIn: job.startIn,
    variables: job.variables,
    needs: job.needs,
    interruptible: job.interruptible,
  };
  if (job.rules) {
    let matched: number | null;
    try {
      matched = await firstMatchingRule(job.rules, conditions, lookup);
    } catch (error) {
      if (!(error instanceof RuleClauseError)) throw error;
      return { ...base, inclusion: { included: false, decidedBy: 'rules', matchedRule: null }, ruleError: `Failed to parse rule for ${job.name}: ${error.message}` };
    }
    if (matched === null) return { ...base, inclusion: { included: false, decidedBy: 'rules', matchedRule: null } };
    const rule = job.rules[matched];
    if (!rule) return base;
    const when = rule.when ?? job.when ?? 'on_success';
    return {
      inclusion: { included: when !== 'never', decidedBy: 'rules', matchedRule: matched },
      when: when === 'never' ? jobWhen : when,
      // The default comes from the job-level `when`, not the rule's (reference §2.3).
      allowFailure: rule.allowFailure ?? job.allowFailure ?? job.when === 'manual',
      // A rule's `allow_failure` drops the exit codes (GitLab's allow_failure_criteria_attributes).
      allowFailureExitCodes: rule.allowFailure === null ? job.allowFailureExitCodes : null,
      startIn: rule.startIn ?? job.startIn,
      variables: rule.variables ? mergeVariables(job.variables, rule.variables) : job.variables,
      needs: rule.needs ?? job.needs,
      interruptible: rule.interruptible ?? job.interruptible,
    };
  }
  const only = job.only ?? (withWorkflowRules ? null : DEFAULT_ONLY);
  const onlyOk = only === null || (await policySatisfied(only, conditions, lookup, 'all'));
  const exceptHit = job.except ? await policySatisfied(job.except, conditions, lookup, 'any') : false;
  const decidedBy = job.only || job.except ? 'only/except' : 'default';
  return { ...base, inclusion: { included: onlyOk && !exceptHit, decidedBy, matchedRule: null } };
}

/** Index of the first rule whose clauses all hold, or null. */
export async function firstMatchingRule(rules: RuleConfig[], conditions: ConditionContext, lookup: Lookup): Promise<number | null> {
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    if (rule && (await ruleMatches(rule, conditions, lookup))) return index;
  }
  return null;
}

/** `workflow:rules`: a rule that cannot be evaluated leaves none matched (GitLab's workflow step ignores its error: filtered). */
export async function firstMatchingWorkflowRule(rules: RuleConfig[], conditions: ConditionContext, lookup: Lookup): Promise<number | null> {
  try {
    return await firstMatchingRule(rules, conditions, lookup);
  } catch (error) {
    if (error instanceof RuleClauseError) return null;
    throw error;
  }
}

async function ruleMatches(rule: RuleConfig, conditions: ConditionContext, lookup: Lookup): Promise<boolean> {
  if (rule.if !== null && !conditions.expressionTrue(rule.if, lookup)) return false;
  if (rule.changes !== null && !(await conditions.changesClauseMatch(rule.changes, lookup))) return false;
  if (rule.exists !== null && !(await conditions.existsMatch(rule.exists, lookup))) return false;
  return true;
}

/**
 * `only`: every spec (refs, variables, changes, kubernetes) must hold.
 * `except`: the job is excluded when any spec holds. Inside a spec, any element suffices.
 */
async function policySatisfied(
  policy: PolicyConfig,
  conditions: ConditionContext,
  lookup: Lookup,
  mode: 'all' | 'any',
): Promise<boolean> {
  const results: boolean[] = [];
  if (policy.refs !== null) results.push(policy.refs.some((pattern) => conditions.refMatches(pattern)));
  if (policy.variables !== null) {
    results.push(policy.variables.some((expression) => conditions.expressionTrue(expression, lookup)));
  }
  if (policy.changes !== null) results.push(conditions.changesMatch(policy.changes));
  if (policy.kubernetes !== null) results.push(false);
  if (results.length === 0) return mode === 'all';
  return mode === 'all' ? results.every(Boolean) : results.some(Boolean);
}
