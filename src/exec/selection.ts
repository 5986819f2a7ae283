/**
 * Which jobs `runner exec` runs. The whole pipeline needs nothing of this; for named jobs, a
 * stage or `--needs`, the compiled pipeline (includes, `extends`, `!reference`, rules and
 * `parallel` already resolved by the compiler) loses the other jobs, and the kept jobs' `needs`
 * and `dependencies` lose what is gone; the creation service saves that result as it saves a
 * compiled one. A job is chosen by its name or, for every instance of a `parallel` job, by its
 * base name: `build 2/3` or `build: [linux]` is that one instance.
 */
import type { CompileResult, JobDefinition } from '../ci/model.ts';
import { ExecError } from './errors.ts';

export interface JobChoice {
  /** Job names (an instance after `parallel` expansion, or the base name for all of its instances). */
  names: readonly string[];
  /** Also run, transitively, what the named jobs need or take artifacts from. */
  withNeeds: boolean;
  stage?: string;
}

/** Names of the jobs to keep (instances, for `parallel` jobs); null when the choice is the whole pipeline. */
export function chooseJobs(result: CompileResult, choice: JobChoice): Set<string> | null {
  if (choice.names.length === 0 && choice.stage === undefined) return null;
  const jobs = result.jobs;
  const chosen = new Set<JobDefinition>();
  for (const name of choice.names) {
    const exact = jobs.filter((job) => job.name === name);
    const matching = exact.length > 0 ? exact : jobs.filter((job) => job.baseName === name);
    if (matching.length === 0) throw unknownJob(name, result);
    for (const job of matching) chosen.add(job);
  }
  if (choice.stage !== undefined) {
    const inStage = jobs.filter((job) => job.stage === choice.stage);
    if (inStage.length === 0) throw new ExecError(`no job of the pipeline is in stage "${choice.stage}"; its stages: ${result.stages.map((stage) => stage.name).join(', ')}`);
    for (const job of inStage) chosen.add(job);
  }
  if (choice.withNeeds) {
    const byName = new Map(jobs.map((job) => [job.name, job]));
    const pending = [...chosen];
    for (let job = pending.pop(); job !== undefined; job = pending.pop()) {
      const upstream = [...(job.needs ?? []).map((need) => need.job), ...(job.dependencies ?? [])];
      for (const name of upstream) {
        // Compiled needs and dependencies name instances; a base name stands for all of them.
        const found = byName.get(name);
        for (const upstreamJob of found ? [found] : jobs.filter((candidate) => candidate.baseName === name)) {
          if (chosen.has(upstreamJob)) continue;
          chosen.add(upstreamJob);
          pending.push(upstreamJob);
        }
      }
    }
  }
  return new Set([...chosen].map((job) => job.name));
}

/**
 * The compiled pipeline with only the `keep` jobs: their `needs` and `dependencies` lose the
 * jobs that are gone (a need on one becomes no wait, as a `needs: []`), and the stages left
 * without jobs go. What else the compiler answered (variables, warnings) stays as it was.
 */
export function resultWithOnly(result: CompileResult, keep: ReadonlySet<string>): CompileResult {
  const kept = result.jobs.filter((job) => keep.has(job.name));
  const present = new Set(kept.map((job) => job.name));
  const jobs = kept.map((job) => ({
    ...job,
    needs: job.needs === null ? null : job.needs.filter((need) => present.has(need.job)),
    dependencies: job.dependencies === null ? null : job.dependencies.filter((name) => present.has(name)),
  }));
  const stagesWithJobs = new Set(jobs.map((job) => job.stage));
  return { ...result, jobs, stages: result.stages.filter((stage) => stagesWithJobs.has(stage.name)) };
}

function unknownJob(name: string, result: CompileResult): ExecError {
  const excluded = result.excludedJobs.find((job) => job.name === name || job.baseName === name);
  if (excluded) return new ExecError(`job "${name}" is not in this pipeline: its rules/only/except leave it out (try --ref, --tag or --source)`);
  const valid = [...new Set(result.jobs.map((job) => job.name))];
  return new ExecError(`unknown job "${name}"; the pipeline's jobs: ${valid.join(', ')}`);
}

type Mapping = Record<string, unknown>;
const isMapping = (value: unknown): value is Mapping => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The merged configuration with only the jobs (`keep`: names, or instances of a `parallel`
 * job, whose whole job stays) and everything that is not a job; `--reuse` rewrites the jobs it
 * reuses in it and compiles it again.
 */
export function configWithOnly(merged: Mapping, result: CompileResult, keepNames: ReadonlySet<string>): Mapping {
  const all = [...result.jobs, ...result.excludedJobs];
  const keep = new Set(all.filter((job) => keepNames.has(job.name)).map((job) => job.baseName));
  const jobNames = new Set(all.map((job) => job.baseName));
  // `needs` and `dependencies` may name a `parallel` job's instance (`build: [linux]`): kept with its base job.
  const baseOf = new Map(all.map((job) => [job.name, job.baseName]));
  const kept = (name: string): boolean => keep.has(baseOf.get(name) ?? name);
  const out: Mapping = {};
  for (const [key, value] of Object.entries(merged)) {
    if (!jobNames.has(key)) out[key] = value;
    else if (keep.has(key)) out[key] = isMapping(value) ? withoutMissingUpstream(value, kept) : value;
  }
  return out;
}

function withoutMissingUpstream(job: Mapping, kept: (name: string) => boolean): Mapping {
  const out: Mapping = { ...job };
  if (Array.isArray(job.needs)) out.needs = keptNeeds(job.needs, kept);
  // A rule's `needs` replace the job's when it matches; the compiler checks them all the same.
  if (Array.isArray(job.rules)) {
    out.rules = job.rules.map((rule) => (isMapping(rule) && Array.isArray(rule.needs) ? { ...rule, needs: keptNeeds(rule.needs, kept) } : rule));
  }
  if (Array.isArray(job.dependencies)) out.dependencies = job.dependencies.filter((name) => typeof name === 'string' && kept(name));
  return out;
}

function keptNeeds(needs: unknown[], kept: (name: string) => boolean): unknown[] {
  return needs.filter((need) => {
    if (typeof need === 'string') return kept(need);
    // Needs of another pipeline or project are not jobs of this one: they stay.
    if (isMapping(need) && typeof need.job === 'string' && need.pipeline === undefined && need.project === undefined) return kept(need.job);
    return true;
  });
}
