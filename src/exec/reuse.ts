/**
 * `--reuse`: a job whose inputs are those of its last successful run takes that run's
 * artifacts and status instead of running. The key of a job (sha256 of one JSON document):
 *   - its compiled definition (script, image, variables of the CI file, rules outcome, ...: what
 *     its payload is made of, without the ids, tokens and URLs of one run);
 *   - the run's context: ref and its kind, pipeline source, executor and default image, the
 *     pipeline variables (`--variable`, `--env-file`) and the local variables, values included;
 *   - the git tree of the snapshot;
 *   - the digest of each upstream job's artifacts (the jobs it takes artifacts from), a hash of
 *     their unpacked files' paths and contents.
 * An upstream job that has to run makes its downstream jobs run too (its artifacts are not known
 * in advance). Records live in `.gantry/reuse/<job>/` (`entry.json`, `files/`); a failed run of
 * a job removes its record. A reused job still appears in the pipeline: it runs with
 * `GIT_STRATEGY: none` and a script that copies the recorded artifacts back, so that later jobs
 * download them from the coordinator as usual. See docs/exec.md ("Reusing earlier runs").
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { cp, lstat, mkdir, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CompileResult, JobDefinition } from '../ci/model.ts';
import { commitTree } from './git.ts';
import { jobDirectoryName } from './local-state.ts';
import type { JobResult } from './output.ts';

export interface ReuseContext {
  ref: { name: string; kind: 'branch' | 'tag' };
  source: string;
  executor: string;
  dockerImage: string | null;
  pipelineVariables: ReadonlyArray<{ key: string; value: string }>;
  localVariables: readonly unknown[];
  tree: string;
}

interface ReuseEntry {
  key: string;
  /** Digest of the recorded artifacts; null when the job had none. */
  artifactsDigest: string | null;
}

export interface ReusePlan {
  /** Job name → the directory of its recorded artifacts (null: it had none). */
  reused: Map<string, string | null>;
}

const ENTRY = 'entry.json';

export function reuseDirectory(root: string): string {
  return path.join(root, '.gantry', 'reuse');
}

/** The git tree of the snapshot commit: the files every job starts from. */
export async function snapshotTree(root: string, sha: string): Promise<string> {
  return commitTree(root, sha);
}

/** The jobs whose key equals their record's. */
export async function planReuse(root: string, result: CompileResult, runs: (job: JobDefinition) => boolean, context: ReuseContext): Promise<ReusePlan> {
  const reused = new Map<string, string | null>();
  const digests = new Map<string, string | null>();
  for (const job of result.jobs) {
    if (!reusable(job) || !runs(job)) continue;
    const entry = await readEntry(root, job.name);
    if (!entry) continue;
    const key = jobKey(job, result, context, (name) => digests.get(name));
    if (key !== entry.key) continue;
    digests.set(job.name, entry.artifactsDigest);
    reused.set(job.name, entry.artifactsDigest === null ? null : path.join(reuseDirectory(root), jobDirectoryName(job.name), 'files'));
  }
  return { reused };
}

/** Records the successful jobs that ran (their key and artifacts) and forgets the failed ones. */
export async function recordReuse(root: string, result: CompileResult, context: ReuseContext, plan: ReusePlan, pipelineId: number, outcome: readonly JobResult[]): Promise<void> {
  const definitions = new Map(result.jobs.map((job) => [job.name, job]));
  const digests = new Map<string, string | null>();
  for (const job of outcome) {
    const definition = definitions.get(job.name);
    if (!definition || !reusable(definition) || job.pipelineId !== pipelineId) continue;
    const directory = path.join(reuseDirectory(root), jobDirectoryName(job.name));
    if (plan.reused.has(job.name)) {
      digests.set(job.name, (await readEntry(root, job.name))?.artifactsDigest ?? null);
      continue;
    }
    if (job.status !== 'success') {
      if (job.status === 'failed') await rm(directory, { recursive: true, force: true });
      continue;
    }
    const artifactsDigest = job.artifacts ? await treeDigest(job.artifacts) : null;
    const key = jobKey(definition, result, context, (name) => digests.get(name));
    digests.set(job.name, artifactsDigest);
    await rm(directory, { recursive: true, force: true });
    if (key === null) continue;
    await mkdir(directory, { recursive: true });
    if (job.artifacts) await cp(job.artifacts, path.join(directory, 'files'), { recursive: true, verbatimSymlinks: true });
    const entry: ReuseEntry = { key, artifactsDigest };
    await writeFile(path.join(directory, ENTRY), `${JSON.stringify(entry)}\n`);
  }
}

/**
 * Where docker jobs see `.gantry/reuse/` (mounted read-only into the job containers of a
 * `--reuse` run that reuses some): a reused job's script copies its files from there.
 */
export const CONTAINER_REUSE_DIRECTORY = '/gantry-reuse';

/** The `[runners.docker] volumes` entry that shows `.gantry/reuse/` to docker jobs. */
export function reuseVolume(root: string): string {
  return `${reuseDirectory(root)}:${CONTAINER_REUSE_DIRECTORY}:ro`;
}

/**
 * The merged configuration with each reused job copying its recorded artifacts back instead
 * of running; with `inContainer`, from `.gantry/reuse/` as docker jobs see it.
 */
export function withReusedJobs(root: string, merged: Record<string, unknown>, plan: ReusePlan, inContainer: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { ...merged };
  for (const [name, recorded] of plan.reused) {
    const files = recorded !== null && inContainer ? path.posix.join(CONTAINER_REUSE_DIRECTORY, ...path.relative(reuseDirectory(root), recorded).split(path.sep)) : recorded;
    const job = out[name];
    if (typeof job !== 'object' || job === null || Array.isArray(job)) continue;
    const original = job as Record<string, unknown>;
    const variables = typeof original.variables === 'object' && original.variables !== null ? original.variables : {};
    out[name] = {
      ...original,
      variables: { ...variables, GIT_STRATEGY: 'none' },
      before_script: [],
      script: [files === null ? 'echo "reused: no artifacts"' : `cp -a ${shellQuoted(`${files}/.`)} . && echo "reused: artifacts restored"`],
      after_script: [],
      cache: [],
      services: [],
      retry: 0,
    };
  }
  return out;
}

/** Parallel and trigger jobs always run: their records would need one per instance or pipeline. */
function reusable(job: JobDefinition): boolean {
  return job.parallel === null && job.trigger === null;
}

/** null when an upstream job's artifacts are not known (it runs now). */
function jobKey(job: JobDefinition, result: CompileResult, context: ReuseContext, digestOf: (name: string) => string | null | undefined): string | null {
  const upstream: Record<string, string | null> = {};
  for (const name of upstreamOf(job, result)) {
    const digest = digestOf(name);
    if (digest === undefined) return null;
    upstream[name] = digest;
  }
  const { inclusion, ...definition } = job;
  const document = { definition, inclusion, workflowVariables: result.workflowVariables, context, upstream };
  return createHash('sha256').update(JSON.stringify(document)).digest('hex');
}

/** The jobs whose artifacts `job` downloads, as the runner's dependencies are chosen. */
function upstreamOf(job: JobDefinition, result: CompileResult): string[] {
  let names = job.needs !== null ? job.needs.filter((need) => need.artifacts).map((need) => need.job) : result.jobs.filter((other) => other.stageIndex < job.stageIndex).map((other) => other.name);
  if (job.dependencies !== null) {
    const allowed = new Set(job.dependencies);
    names = names.filter((name) => allowed.has(name) || allowed.has(result.jobs.find((other) => other.name === name)?.baseName ?? name));
  }
  // A need of another pipeline, or of a job the rules left out, is not an input here.
  return names.filter((name) => result.jobs.some((other) => other.name === name || other.baseName === name)).sort();
}

async function readEntry(root: string, name: string): Promise<ReuseEntry | null> {
  const text = await readFile(path.join(reuseDirectory(root), jobDirectoryName(name), ENTRY), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    const entry = JSON.parse(text) as Partial<ReuseEntry>;
    return typeof entry.key === 'string' ? { key: entry.key, artifactsDigest: typeof entry.artifactsDigest === 'string' ? entry.artifactsDigest : null } : null;
  } catch {
    return null;
  }
}

/** sha256 over the sorted relative paths of a directory's files, each with its content's sha256. */
async function treeDigest(directory: string): Promise<string> {
  const files = (await readdir(directory, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile() || entry.isSymbolicLink());
  const names = files.map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name))).sort();
  const digest = createHash('sha256');
  for (const name of names) {
    const file = path.join(directory, name);
    const content = createHash('sha256');
    if ((await lstat(file)).isSymbolicLink()) content.update(`symlink:${await readlink(file)}`);
    else for await (const chunk of createReadStream(file)) content.update(chunk as Buffer);
    digest.update(`${name}\0${content.digest('hex')}\n`);
  }
  return digest.digest('hex');
}

function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
