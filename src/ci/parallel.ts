/**
 * `parallel: N` → jobs "name 1/N" … "name N/N"; `parallel:matrix` → "name: [a, b]".
 * `needs` and `dependencies` that name the base job then refer to every instance.
 * A matrix instance's `needs:parallel:matrix` values may hold matrix expressions,
 * `$[[ matrix.KEY ]]`: replaced by that instance's value of KEY (GitLab 18.6).
 */
import type { DiagnosticSink } from './diagnostics.ts';
import type { JobConfig } from './job-config.ts';
import type { JobNeed, YamlVariable } from './model.ts';
import { mergeVariables } from './entries/variables.ts';

export interface ExpandedJob {
  config: JobConfig;
  baseName: string;
  parallel: { index: number; total: number } | null;
}

export function expandParallel(jobs: JobConfig[], sink: DiagnosticSink): ExpandedJob[] {
  const expanded: ExpandedJob[] = [];
  const reported = new Set<string>();
  const report = (message: string, job: string): void => {
    if (!reported.has(message)) sink.error(message, [job, 'needs']);
    reported.add(message);
  };
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
      const own = parallel.kind === 'matrix' ? withMatrixExpressions(job, combination, report) : job;
      expanded.push({
        config: { ...own, name, variables: mergeVariables(job.variables, combination) },
        baseName: job.name,
        parallel: { index, total },
      });
    }
  }
  const unique = lastOfEachName(expanded);
  const instances = new Map<string, string[]>();
  for (const job of unique) {
    if (job.parallel) instances.set(job.baseName, [...(instances.get(job.baseName) ?? []), job.config.name]);
  }
  if (instances.size === 0) return unique;
  return unique.map((job) => ({ ...job, config: renameReferences(job.config, instances) }));
}

/**
 * GitLab keeps the expanded jobs in a hash by name: matrix entries with the same values under
 * other names (`OS: [ubuntu]` and `OS2: [ubuntu]`) give one job, the later one's, where the
 * first stood.
 */
function lastOfEachName(jobs: ExpandedJob[]): ExpandedJob[] {
  const byName = new Map<string, ExpandedJob>();
  for (const job of jobs) byName.set(job.config.name, job);
  return byName.size === jobs.length ? jobs : [...byName.values()];
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

const MATRIX_EXPRESSION = /\$\[\[\s*matrix\.([a-zA-Z0-9_-]+)\s*\]\]/g;

/** Needs naming an instance through `$[[ matrix.KEY ]]` name this instance's counterpart; a KEY not in its matrix is an error. */
function withMatrixExpressions(job: JobConfig, combination: YamlVariable[], report: (message: string, job: string) => void): JobConfig {
  const values = new Map(combination.map((variable) => [variable.key, variable.value]));
  const resolveName = (name: string): string =>
    name.replace(MATRIX_EXPRESSION, (written, key: string) => {
      const value = values.get(key);
      if (value === undefined) report(`${job.name} job: '${key}' does not exist in matrix configuration`, job.name);
      return value ?? written;
    });
  const resolve = (needs: JobNeed[] | null): JobNeed[] | null => needs?.map((need) => ({ ...need, job: resolveName(need.job) })) ?? null;
  return { ...job, needs: resolve(job.needs), rules: job.rules?.map((rule) => ({ ...rule, needs: resolve(rule.needs) })) ?? null };
}
