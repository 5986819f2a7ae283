/**
 * A bridge job (GitLab `Entry::Bridge`): `trigger` plus the keys every processable job has.
 * It runs on no runner, so it takes no defaults (image, before_script, cache...) and has no
 * script; only the global variables are inherited (`inherit:variables` applies).
 */
import type { DiagnosticSink } from '../diagnostics.ts';
import type { JobConfig } from '../job-config.ts';
import type { JobWhen } from '../model.ts';
import type { PlainObject } from '../values.ts';
import { EntryChecker } from './checker.ts';
import { NO_RETRY, readEnvironment, readParallel } from './environment-retry.ts';
import { checkRulesClash, readInherit, readResourceGroup, type JobInputs } from './job.ts';
import { readPolicy, readRules } from './policies.ts';
import { readNeeds } from './needs.ts';
import { readTrigger } from './trigger.ts';
import { JOB_VARIABLE_DATA, mergeVariables, readVariables } from './variables.ts';

/** `Bridge::ALLOWED_KEYS + Processable::PROCESSABLE_ALLOWED_KEYS`. */
export const BRIDGE_KEYS = [
  'trigger', 'parallel', 'extends', 'stage', 'only', 'except', 'rules', 'variables', 'inherit',
  'allow_failure', 'when', 'needs', 'resource_group', 'environment', 'interruptible',
] as const;

const BRIDGE_WHEN: readonly JobWhen[] = ['on_success', 'on_failure', 'always', 'manual'];

export function readBridge(inputs: JobInputs & { value: PlainObject }, sink: DiagnosticSink): JobConfig | null {
  const { name, value: hash } = inputs;
  const checker = new EntryChecker(sink, `jobs:${name}`, [name]);
  if (!checker.allowedKeys(hash, BRIDGE_KEYS)) return null;
  const inherit = readInherit(hash.inherit, checker.child('inherit'));
  if (!inherit) return null;
  const errorsBefore = sink.errors.length;
  if (hash.trigger === undefined || hash.trigger === null) {
    // GitLab's bridges may also mirror an upstream pipeline (`needs:pipeline`, Premium): not supported here.
    checker.configError('should contain either a trigger or a needs:pipeline');
    return null;
  }
  checkRulesClash(hash, checker);
  const stage = hash.stage ?? 'test';
  if (typeof stage !== 'string') checker.child('stage').configError('should be a string');
  let when: JobWhen | null = null;
  if (hash.when !== undefined && hash.when !== null) {
    if (BRIDGE_WHEN.includes(hash.when as JobWhen)) when = hash.when as JobWhen;
    else checker.attributeError('when', `should be one of: ${BRIDGE_WHEN.join(', ')}`);
  }
  const allowFailure = checker.booleanAttribute(hash, 'allow_failure');
  // `interruptible` (and `default:interruptible`) apply to bridges too, and `environment` (GitLab 16.4's Processable keys).
  const ownInterruptible = hash.interruptible ?? (inherit.defaults('interruptible') ? inputs.defaults.interruptible : undefined);
  const interruptible = typeof ownInterruptible === 'boolean' ? ownInterruptible : null;
  if (ownInterruptible !== undefined && ownInterruptible !== null && interruptible === null) checker.child('interruptible').configError('should be a boolean value');
  const environment = hash.environment === undefined ? null : readEnvironment(hash.environment, checker.child('environment'));
  const tokens = inputs.maxExpressionTokens;
  const read = {
    trigger: readTrigger(hash.trigger, checker.child('trigger')),
    variables: readVariables(hash.variables, checker.child('variables'), JOB_VARIABLE_DATA),
    needs: hash.needs === undefined || hash.needs === null ? null : readNeeds(hash.needs, checker.child('needs')),
    only: readPolicy(hash.only, checker.child('only'), tokens),
    except: readPolicy(hash.except, checker.child('except'), tokens),
    rules: readRules(hash.rules, checker.child('rules'), tokens, 'job'),
    parallel: readParallel(hash.parallel, checker.child('parallel')),
    resourceGroup: readResourceGroup(hash.resource_group, checker),
  };
  const { trigger, variables, needs, only, except, rules, parallel } = read;
  if (sink.errors.length > errorsBefore || !trigger || !variables) return null;
  if (only === undefined || except === undefined || rules === undefined || parallel === undefined || environment === undefined) return null;
  const inherited = inputs.globalVariables.filter((variable) => inherit.variables(variable.key));
  return {
    name,
    stage: typeof stage === 'string' ? stage : 'test',
    script: [],
    beforeScript: [],
    afterScript: [],
    image: null,
    services: [],
    variables: mergeVariables(inherited, variables),
    cache: [],
    artifacts: null,
    environment,
    coverage: null,
    retry: NO_RETRY,
    timeout: null,
    interruptible,
    resourceGroup: read.resourceGroup,
    tags: [],
    when,
    startIn: null,
    allowFailure,
    allowFailureExitCodes: null,
    needs: needs ?? null,
    dependencies: null,
    only,
    except,
    rules,
    parallel,
    trigger,
  };
}
