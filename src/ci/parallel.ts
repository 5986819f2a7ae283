/**
 * `parallel: N` → jobs "name 1/N" … "name N/N"; `parallel:matrix` → "name: [a, b]".
 * `needs` and `dependencies` that name the base job then refer to every instance.
 */
import type { JobConfig } from './job-config.ts';
import type { JobNeed, YamlVariable } from './model.ts';
import { mergeVariables } from './entries/variables.ts';

export interface ExpandedJob {
  config: JobConfig;
  baseName: string;
  parallel: { index: number; total: number } | null;
}

export function expandParallel(jobs: JobConfig[]): ExpandedJob[] {
  const expanded: ExpandedJob[] = [];
  for (const job of jobs) {
    const parallel = job.parallel;
    if (!parallel) {
      expanded.push({ config: job, baseName: job.name, parallel: null });
      continue;
    }
    const total = parallel.kind === 'number' ? parallel.total : parallel.combinations.length;
    for (let index = 1; index <= total; index++) {
      const combination: YamlVariable[] = parallel.kind === 'matrix' ? (parallel.combinations[index - 1] ?? []) : [];
      const name =
        parallel.kind === 'number' ? `${job.name} ${index}/${total}` : `${job.name}: [${combination.map((v) => v.value).join(', ')}]`;
      expanded.push({
        config: { ...job, name, variables: mergeVariables(job.variables, combination) },
        baseName: job.name,
        parallel: { index, total },
      });
    }
  }
  const instances = new Map<string, string[]>();
  for (const job of expanded) {
    if (job.parallel) instances.set(job.baseName, [...(instances.get(job.baseName) ?? []), job.config.name]);
  }
  if (instances.size === 0) return expanded;
  return expanded.map((job) => ({ ...job, config: renameReferences(job.config, instances) }));
}

function renameReferences(job: JobConfig, instances: Map<string, string[]>): JobConfig {
  const expandNeeds = (needs: JobNeed[] | null): JobNeed[] | null =>
    needs?.flatMap((need) => (instances.get(need.job) ?? [need.job]).map((name) => ({ ...need, job: name }))) ?? null;
  return {
    ...job,
    needs: expandNeeds(job.needs),
    dependencies: job.dependencies?.flatMap((name) => instances.get(name) ?? [name]) ?? null,
    rules: job.rules?.map((rule) => ({ ...rule, needs: expandNeeds(rule.needs) })) ?? null,
  };
}
