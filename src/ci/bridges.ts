/**
 * Helpers for bridge jobs (`trigger:`), shared by lint and by the coordinator that creates
 * downstream pipelines.
 */
import type { BridgeJobDefinition, ChildTrigger, IncludeSource, JobDefinition, TriggerDefinition } from './model.ts';

export function isBridge(job: JobDefinition): job is BridgeJobDefinition {
  return job.trigger !== null;
}

/**
 * The CI file of a child pipeline, as GitLab builds it (`Ci::Bridge#yaml_for_downstream`):
 * a document that only includes the trigger's files. Compile it with `compilePipeline` in
 * the parent's project at the parent's sha, source `parent_pipeline`, and a reader whose
 * `readArtifactFile` reads the parent's job artifacts. Missing files are reported then.
 */
export function childPipelineConfig(trigger: ChildTrigger): string {
  return `${JSON.stringify({ include: trigger.include.map(includeEntry) }, null, 2)}\n`;
}

function includeEntry(source: IncludeSource): Record<string, unknown> {
  const inputs = source.inputs === undefined ? {} : { inputs: source.inputs };
  switch (source.kind) {
    case 'local':
      return { local: source.local, ...inputs };
    case 'project':
      return { project: source.project, file: source.file, ...(source.ref === null ? {} : { ref: source.ref }), ...inputs };
    case 'artifact':
      return { artifact: source.artifact, job: source.job, ...inputs };
    case 'component':
      return { component: source.component, ...inputs };
    case 'remote':
      return { remote: source.remote, ...(source.integrity === undefined ? {} : { integrity: source.integrity }), ...inputs };
  }
}

/** One line for people: `group/project`, `group/project@branch (depend)`, `child: ci/a.yml, out.yml (artifact of gen)`. */
export function describeTrigger(trigger: TriggerDefinition): string {
  const strategy = trigger.strategy ? ` (${trigger.strategy})` : '';
  if (trigger.kind === 'project') return `${trigger.project}${trigger.branch === null ? '' : `@${trigger.branch}`}${strategy}`;
  const files = trigger.include.map((source) => {
    switch (source.kind) {
      case 'local':
        return source.local;
      case 'artifact':
        return `${source.artifact} (artifact of ${source.job})`;
      case 'component':
        return source.component;
      case 'remote':
        return source.remote;
      case 'project':
        return `${source.project}:${source.file}${source.ref === null ? '' : `@${source.ref}`}`;
    }
  });
  return `child: ${files.join(', ')}${strategy}`;
}
