/**
 * Checks across jobs, done on the whole configuration before any job is filtered out:
 * stages exist, dependencies, needs and child-pipeline artifact jobs name jobs of the same or
 * earlier stages (GitLab 14.2+), on_stop jobs fit.
 */
import type { DiagnosticSink } from './diagnostics.ts';
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
    const allNeeds = [...(config.needs ?? []), ...(config.rules ?? []).flatMap((rule) => rule.needs ?? [])];
    for (const need of allNeeds) {
      const needStage = stageOf.get(need.job);
      if (needStage === undefined) report(`${baseName} job: undefined need: ${need.job}`, [baseName, 'needs']);
      else if (needStage > ownStage) {
        report(`${baseName} job: need ${need.job} is not defined in current or prior stages`, [baseName, 'needs']);
      }
    }
    // With `needs`, every dependency must be one of them: GitLab names them all in one error.
    // `needs: []` has no value to compare with: the job entry skips the check then.
    const needed = config.needs ?? [];
    const notNeeded = (config.dependencies ?? []).filter((dependency) => needed.length > 0 && !needed.some((need) => need.job === dependency));
    if (notNeeded.length > 0) report(`jobs:${baseName} dependencies the ${notNeeded.join(', ')} should be part of needs`, [baseName, 'dependencies']);
    for (const dependency of config.dependencies ?? []) {
      if (notNeeded.includes(dependency)) continue;
      const dependencyStage = stageOf.get(dependency);
      if (dependencyStage === undefined) {
        report(`${baseName} job: undefined dependency: ${dependency}`, [baseName, 'dependencies']);
      } else if (dependencyStage > ownStage) {
        report(`${baseName} job: dependency ${dependency} is not defined in current or prior stages`, [baseName, 'dependencies']);
      }
    }
    // A child pipeline's `include:artifact` job is a dependency of the bridge (YP `validate_dynamic_child_pipeline_dependencies!`).
    const artifactJobs = config.trigger?.kind === 'child' ? config.trigger.include.flatMap((source) => (source.kind === 'artifact' ? [source.job] : [])) : [];
    for (const dependency of artifactJobs) {
      const dependencyStage = stageOf.get(dependency);
      const path = [baseName, 'trigger', 'include'];
      if (dependencyStage === undefined) report(`${baseName} job: undefined dependency: ${dependency}`, path);
      else if (dependencyStage > ownStage) report(`${baseName} job: dependency ${dependency} is not defined in current or prior stages`, path);
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
