/**
 * Checks across jobs, done on the whole configuration before any job is filtered out:
 * stages exist, dependencies, needs and child-pipeline artifact jobs name jobs of the same or
 * earlier stages (GitLab 14.2+), on_stop jobs fit, needs form no cycle; and the rules:when warning.
 */
import type { DiagnosticSink } from './diagnostics.ts';
import type { JobConfig } from './job-config.ts';
import type { ExpandedJob } from './parallel.ts';

export function checkStages(jobs: ExpandedJob[], stages: string[], sink: DiagnosticSink): void {
  const reported = new Set<string>();
  for (const { config, baseName } of jobs) {
    if (stages.includes(config.stage) || reported.has(baseName)) continue;
    reported.add(baseName);
    sink.error(`${baseName} job: stage parameter should be ${stages.join(', ')}`, [baseName, 'stage']);
  }
}

export function checkReferences(jobs: ExpandedJob[], stages: string[], sink: DiagnosticSink): void {
  const stageOf = new Map(jobs.map((job) => [job.config.name, stages.indexOf(job.config.stage)]));
  const byName = new Map(jobs.map((job) => [job.config.name, job]));
  const reported = new Set<string>();
  const report = (message: string, path: (string | number)[]): void => {
    if (reported.has(message)) return;
    reported.add(message);
    sink.error(message, path);
  };

  for (const { config, baseName } of jobs) {
    const ownStage = stages.indexOf(config.stage);
    // GitLab stops at a job's unknown stage before its references; a referenced job in an unknown stage is no earlier one.
    const notEarlier = (stage: number): boolean => ownStage >= 0 && (stage < 0 || stage > ownStage);
    for (const needs of [config.needs, ...(config.rules ?? []).map((rule) => rule.needs)]) {
      for (const need of needs ?? []) {
        const needStage = stageOf.get(need.job);
        // An optional need of a job the configuration lacks (an include left it out) is dropped later, as GitLab does.
        if (needStage === undefined) {
          if (!need.optional) report(`${baseName} job: undefined need: ${need.job}`, [baseName, 'needs']);
        } else if (notEarlier(needStage)) {
          report(`${baseName} job: need ${need.job} is not defined in current or prior stages`, [baseName, 'needs']);
        }
      }
      const duplicated = duplicates((needs ?? []).map((need) => need.job));
      if (duplicated.length > 0) report(`${baseName} has the following needs duplicated: ${duplicated.join(', ')}.`, [baseName, 'needs']);
    }
    // With `needs`, every dependency must be one of them: GitLab names them all in one error.
    // `needs: []` has no value to compare with: the job entry skips the check then.
    const needed = config.needs ?? [];
    // Only needs of other pipelines (`needs: [{pipeline, job}]`): GitLab refuses the dependencies outright.
    if ((config.dependencies ?? []).length > 0 && needed.length === 0 && (config.crossPipelineNeeds ?? []).length > 0) {
      report(`jobs:${baseName} needs corresponding to dependencies must be from the same pipeline`, [baseName, 'needs']);
    }
    const notNeeded = (config.dependencies ?? []).filter((dependency) => needed.length > 0 && !needed.some((need) => need.job === dependency));
    if (notNeeded.length > 0) report(`jobs:${baseName} dependencies the ${notNeeded.join(', ')} should be part of needs`, [baseName, 'dependencies']);
    for (const dependency of config.dependencies ?? []) {
      if (notNeeded.includes(dependency)) continue;
      const dependencyStage = stageOf.get(dependency);
      if (dependencyStage === undefined) {
        report(`${baseName} job: undefined dependency: ${dependency}`, [baseName, 'dependencies']);
      } else if (notEarlier(dependencyStage)) {
        report(`${baseName} job: dependency ${dependency} is not defined in current or prior stages`, [baseName, 'dependencies']);
      }
    }
    // A child pipeline's `include:artifact` job is a dependency of the bridge (YP `validate_dynamic_child_pipeline_dependencies!`).
    const artifactJobs = config.trigger?.kind === 'child' ? config.trigger.include.flatMap((source) => (source.kind === 'artifact' ? [source.job] : [])) : [];
    for (const dependency of artifactJobs) {
      const dependencyStage = stageOf.get(dependency);
      const path = [baseName, 'trigger', 'include'];
      if (dependencyStage === undefined) report(`${baseName} job: undefined dependency: ${dependency}`, path);
      else if (notEarlier(dependencyStage)) report(`${baseName} job: dependency ${dependency} is not defined in current or prior stages`, path);
    }
    const environment = config.environment;
    if (environment?.onStop) {
      const stopJob = byName.get(environment.onStop)?.config;
      const prefix = `${baseName} job: on_stop job ${environment.onStop}`;
      const path = [baseName, 'environment', 'on_stop'];
      if (!stopJob) report(`${prefix} is not defined`, path);
      else if (!stopJob.environment) report(`${prefix} does not have environment defined`, path);
      else if (stopJob.environment.name !== environment.name) report(`${prefix} have different environment name`, path);
      else if (stopJob.environment.action !== 'stop') report(`${prefix} needs to have action stop defined`, path);
    }
  }
}

function duplicates(names: string[]): string[] {
  const seen = new Set<string>();
  const duplicated = new Set<string>();
  for (const name of names) (seen.has(name) ? duplicated : seen).add(name);
  return [...duplicated];
}

/**
 * GitLab's Dag check (a topological sort of the jobs' own `needs`, Ruby's TSort): a job that
 * needs itself, or a cycle of needs, refuses the pipeline. The first one the depth-first walk
 * meets is named, its jobs in the order they were reached.
 */
export function checkNeedsCycles(jobs: ExpandedJob[], sink: DiagnosticSink): void {
  const children = new Map(jobs.map((job) => [job.config.name, (job.config.needs ?? []).map((need) => need.job)]));
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const visit = (node: string): string | null => {
    index.set(node, index.size);
    lowest.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    const needs = children.get(node) ?? [];
    if (needs.includes(node)) return `self-dependency: ${node}`;
    for (const child of needs) {
      if (!children.has(child)) continue;
      if (!index.has(child)) {
        const failure = visit(child);
        if (failure) return failure;
        lowest.set(node, Math.min(lowest.get(node) ?? 0, lowest.get(child) ?? 0));
      } else if (onStack.has(child)) {
        lowest.set(node, Math.min(lowest.get(node) ?? 0, index.get(child) ?? 0));
      }
    }
    if (lowest.get(node) !== index.get(node)) return null;
    const component = stack.splice(stack.indexOf(node));
    for (const member of component) onStack.delete(member);
    return component.length > 1 ? `topological sort failed: [${component.map((name) => JSON.stringify(name)).join(', ')}]` : null;
  };
  for (const node of children.keys()) {
    if (index.has(node)) continue;
    const failure = visit(node);
    if (failure) {
      sink.error(`The pipeline has circular dependencies: ${failure}`, [node, 'needs']);
      return;
    }
  }
}

/** GitLab's warning when a job's last rule is `when:` alone (not `never`) and there are no `workflow:rules`. */
export function warnAboutRulesWhen(jobs: JobConfig[], hasWorkflowRules: boolean, sink: DiagnosticSink): void {
  if (hasWorkflowRules) return;
  for (const job of jobs) {
    const last = job.rules?.[job.rules.length - 1];
    if (!last || last.when === null || last.when === 'never') continue;
    const others = [last.if, last.changes, last.exists, last.startIn, last.allowFailure, last.variables, last.needs, last.interruptible, last.autoCancel];
    if (others.some((clause) => clause !== null)) continue;
    sink.warn(
      `jobs:${job.name} may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - read more: https://docs.gitlab.com/ee/ci/jobs/job_troubleshooting.html#job-may-allow-multiple-pipelines-to-run-for-a-single-action-warning`,
      [job.name, 'rules'],
    );
  }
}
