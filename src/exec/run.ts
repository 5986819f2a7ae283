/**
 * `runner exec`: the working tree's snapshot pushed to an in-process coordinator, its pipeline
 * created by the coordinator's creation service and run by the runner's engine, the logs
 * followed from the coordinator's trace store. See docs/exec.md.
 */
import path from 'node:path';
import { stringify } from 'yaml';
import { formatDiagnostic, formatLintText, lintReport } from '../ci/lint-format.ts';
import type { CompileResult } from '../ci/model.ts';
import type { PipelineCreationInput, PipelineSource, PreparedPipeline } from '../coordinator/services/ci/pipelines/creation.ts';
import type { AutoCancelOutcome } from '../coordinator/services/ci/pipelines/redundant-pipelines.ts';
import { isGantryError } from '../shared/errors.ts';
import type { PipelineRecord } from '../storage/types-ci.ts';
import type { ProjectRecord } from '../storage/types.ts';
import { ExecError } from './errors.ts';
import { readHead, resolveUserCommit, snapshotCommit, workingTreeRoot, type HeadInfo } from './git.ts';
import { projectIdentity } from './project-identity.ts';
import { mergeRequestInput } from './merge-request.ts';
import { createLocalProject } from './project-placement.ts';
import { provideSubmodules } from './submodules.ts';
import { followPipeline, runJobs } from './follow.ts';
import { formatSummary, type ExecIo, type ExecResult } from './output.ts';

export type { ExecIo };
import { chooseJobs, configWithOnly, resultWithOnly } from './selection.ts';
import { RunRegistry } from './superseding.ts';
import { runnerTags } from './runner-tags.ts';
import { leaseKeptBuilds } from './builds-lease.ts';
import { loadStack, prepareRunner, registerLocalRunner, setSnapshotRefs, startedTogether, startLocalCoordinator, type ExecRunnerSettings, type LocalCoordinator } from './session.ts';
import { requestPayload } from './payload.ts';
import { summariseJunitReports } from './junit-summary.ts';
import { copyArtifacts, ignoreLocalState, prepareLocalState, writeJobLogs } from './local-state.ts';
import { withProgress } from './progress.ts';
import { failureShellHook, type ShellTerminal } from './failure-shell.ts';
import { planReuse, recordReuse, reuseVolume, snapshotTree, withReusedJobs, type ReuseContext } from './reuse.ts';
import { mergedProjects, provideOtherProjects, readProjectsFile, type OtherProject } from './other-projects.ts';
import { mergedByKey, readEnvFiles, readVariablesFile, variablesKnownBeforeRun, type LocalVariable } from './local-variables.ts';
import { configureLocalProject } from './local-project.ts';
import { timelineMark } from '../runner/timeline.ts';
import { withDefaultsResolved } from '../ci/preview-defaults.ts';

export interface ExecRequest {
  cwd: string;
  /** The CI file, relative to cwd (default: `.gitlab-ci.yml` at the top of the tree). */
  file?: string;
  jobs: readonly string[];
  needs: boolean;
  stage?: string;
  /** Manual jobs to play when they are reached. */
  manual: readonly string[];
  mode: 'run' | 'list' | 'preview' | 'payload';
  json: boolean;
  committed: boolean;
  ref?: string;
  tag?: string;
  source: PipelineSource;
  /** `--variable`s: pipeline variables, over those of the env files. */
  variables: ReadonlyArray<{ key: string; value: string }>;
  /** `--env-file`s, relative to cwd: pipeline variables too, later files over earlier ones. */
  envFiles: readonly string[];
  /** `--input`s: the CI file's `spec:inputs`, as text read by each input's declared type. */
  inputs: Readonly<Record<string, string>>;
  /** `--project`s: other working trees as projects of the local coordinator. */
  projects: readonly OtherProject[];
  runner: ExecRunnerSettings;
  /** Colour the job-name prefixes. */
  colour: boolean;
  /** Print the runner's sections (get_sources, caches, artifacts...) whole, not just their header line. */
  verbose: boolean;
  /** Keep a progress line under the logs (stdout is a terminal and not --json). */
  progress: boolean;
  /** Where each job's artifacts are unpacked (`<dir>/<job>/`); default `.gantry/artifacts`. */
  artifactsDir?: string;
  /** The runner's cache_dir, kept across runs; default `.gantry/cache`. */
  cacheDir?: string;
  /** Open a shell in a failed job's environment before it is cleaned up (shell executor). */
  shellOnFailure?: ShellTerminal;
  /** Reuse the artifacts and status of jobs whose inputs are unchanged since their last success. */
  reuse: boolean;
  signal?: AbortSignal;
}

/** Runs the request; answers the exit status (0: the pipeline succeeded, or the listing was printed). */
export async function runExec(request: ExecRequest, io: ExecIo): Promise<number> {
  timelineMark('exec start');
  const finding = workingTreeRoot(request.cwd);
  // Evaluated while that git process (and the spawner helper, at first) starts: see loadStack.
  setImmediate(() => void loadStack());
  const root = await finding;
  // The coordinator starts while the tree's head and variables are read.
  const starting = startLocalCoordinator();
  starting.catch(() => undefined); // its failure is seen where it is awaited
  const { head, localVariables, pipelineVariables, projects } = await readInputs(root, request).catch(async (error: unknown) => {
    await starting.then((local) => local.close(), () => undefined);
    throw error;
  });
  timelineMark('tree read');
  const ref = request.tag !== undefined ? { name: request.tag, kind: 'tag' as const } : { name: request.ref ?? head.branch ?? head.defaultBranch, kind: 'branch' as const };
  const [snapshot, { local, configured, registration }] = await startedTogether(
    snapshotCommit(root, head, request.committed),
    startLocalProject(starting, root, head, localVariables, request.mode === 'run'),
  );
  timelineMark('snapshot and project ready');
  const { sha } = snapshot;
  try {
    let project = configured;
    // A snapshot without HEAD's history (a shallow or partial clone's) has no use for its tags.
    await setSnapshotRefs(local, project, { snapshot, defaultBranch: head.defaultBranch, ref, tags: head.historyIncomplete ? [] : head.tags });
    await provideSubmodules(local, project, root, sha);
    const otherProjects = await provideOtherProjects(local, projects, request.committed);
    if (request.file !== undefined) {
      const configPath = path.relative(root, path.resolve(request.cwd, request.file)).split(path.sep).join('/');
      if (configPath.startsWith('..')) throw new ExecError(`--file ${request.file} is outside the working tree ${root}`);
      project = (await local.coordinator.context.stores.projects.update(project.id, { ci_config_path: configPath })) ?? project;
    }
    const branchInput: PipelineCreationInput = {
      project,
      ref: `${ref.kind === 'tag' ? 'refs/tags/' : 'refs/heads/'}${ref.name}`,
      sha,
      source: request.source,
      user: local.root,
      variables: pipelineVariables.map((variable) => ({ key: variable.key, value: variable.value, variable_type: 'env_var' })),
      saveOnErrors: false,
      ignoreSkipCi: true,
      ...(Object.keys(request.inputs).length > 0 ? { inputs: request.inputs, inputsAreText: true } : {}),
      // The snapshot has no parent: compare_to's merge base is taken with HEAD, in the user's refs.
      compareRefs: { resolve: (revision) => resolveUserCommit(root, revision), history: head.sha },
    };
    const input = request.source === 'merge_request_event' ? await mergeRequestInput(local, project, branchInput, { root, head, sha, ref }) : branchInput;
    timelineMark('project ready');
    const prepared = await local.ci.pipelineCreation.prepare(input).catch(explained);
    timelineMark('compiled');
    const { result } = prepared;
    if (request.mode === 'list') {
      const report = lintReport(result);
      io.stdout(request.json ? `${JSON.stringify(report, null, 2)}\n` : formatLintText(report));
      return report.valid ? 0 : 1;
    }
    // The merged configuration is there even when workflow or rules leave no job to run.
    if (request.mode === 'preview' && result.status !== 'invalid') {
      const merged = withDefaultsResolved(result.mergedConfig ?? {});
      // Each job's values written out where it uses them, as GitLab's merged YAML shows them (no aliases).
      io.stdout(request.json ? `${JSON.stringify(merged, null, 2)}\n` : stringify(merged, { aliasDuplicateObjects: false }));
      return 0;
    }
    checkCompiled(result, request.jobs);
    if (request.mode === 'payload') return await printPayload(local, input, prepared, request, io);
    const reuse: ReuseContext | null = request.reuse
      ? {
          ref, source: request.source, executor: request.runner.executor, dockerImage: request.runner.dockerImage ?? null,
          pipelineVariables, localVariables, tree: await snapshotTree(root, sha),
        }
      : null;
    const builds = await leaseKeptBuilds(local.lentObjects);
    try {
      const kept = builds === null ? request : { ...request, runner: { ...request.runner, buildsDir: builds.dir } };
      return await runPipeline(local, root, [project, ...otherProjects], input, prepared, kept, io, reuse, registration, variablesKnownBeforeRun(localVariables, pipelineVariables));
    } finally {
      await builds?.release();
    }
  } finally {
    await local.close();
    timelineMark('coordinator closed');
  }
}

async function readInputs(root: string, request: ExecRequest) {
  const head = await readHead(root);
  // Before the snapshot: a `.gantry/` the user made (variables.yml) must not reach it.
  await ignoreLocalState(root);
  const localVariables = await readVariablesFile(root);
  const pipelineVariables = mergedByKey(await readEnvFiles(request.envFiles, request.cwd), request.variables);
  const projects = mergedProjects(await readProjectsFile(root), request.projects);
  return { head, localVariables, pipelineVariables, projects };
}

interface LocalProject {
  local: LocalCoordinator;
  configured: ProjectRecord;
  /** The runner's registration, started with the project when jobs are to run. */
  registration: Promise<string> | null;
  close(): Promise<void>;
}

/** The coordinator started, the project made and configured, the runner registering: none of it needs the snapshot. */
async function startLocalProject(starting: Promise<LocalCoordinator>, root: string, head: HeadInfo, variables: readonly LocalVariable[], withRunner: boolean): Promise<LocalProject> {
  const { defaultBranch } = head;
  const local = await starting;
  try {
    // GITLAB_USER_NAME and GITLAB_USER_EMAIL: the pipeline's user is the one running it.
    if (head.user.name !== undefined || head.user.email !== undefined) local.root = (await local.coordinator.context.stores.users.update(local.root.id, head.user)) ?? local.root;
    const registration = withRunner ? registerLocalRunner(local).finally(() => timelineMark('runner registered')) : null;
    registration?.catch(() => undefined); // its failure is seen where it is awaited
    const created = await createLocalProject(local, { root, identity: projectIdentity(head.remoteUrl, root), defaultBranch });
    timelineMark('project created');
    const configured = await configureLocalProject(local, created, defaultBranch, variables);
    timelineMark('project configured');
    return { local, configured, registration, close: () => local.close() };
  } catch (error) {
    await local.close();
    throw error;
  }
}

/** `projects`: the working tree's, then the `--project`s (their pipelines started by trigger jobs are the run's too). */
async function runPipeline(
  local: LocalCoordinator, root: string, projects: readonly ProjectRecord[], input: PipelineCreationInput, prepared: PreparedPipeline, request: ExecRequest, io: ExecIo, reuse: ReuseContext | null,
  registration: Promise<string> | null,
  known: ReturnType<typeof variablesKnownBeforeRun>,
): Promise<number> {
  const { result } = prepared;
  const keep = chooseJobs(result, { names: request.jobs, withNeeds: request.needs, stage: request.stage });
  for (const name of request.manual) {
    const named = result.jobs.filter((job) => job.name === name || job.baseName === name);
    if (named.length === 0) chooseJobs(result, { names: [name], withNeeds: false });
    else if (!named.some((job) => job.when === 'manual')) io.stderr(`runner exec: --manual ${name}: the job is not manual (when: ${named[0]!.when}); it runs as its rules say\n`);
  }
  if (request.runner.executor === 'docker') {
    const chosen = keep === null ? result.jobs : result.jobs.filter((job) => keep.has(job.name));
    // Imported here: dockerode (with ssh2 and gRPC) costs a shell pipeline 0.4 s of CPU to load.
    const { checkDocker } = await import('./docker-check.ts');
    // The runner's default image for jobs without one (session.ts).
    await checkDocker(chosen, request.runner.dockerImage ?? 'gantry/debian-git:bookworm', known.variables, known.unknown);
  }
  const state = await prepareLocalState(root);
  const plan = reuse ? await planReuse(root, result, (job) => keep === null || keep.has(job.name), reuse) : null;
  const docker = request.runner.executor === 'docker';
  const reusesSome = plan !== null && plan.reused.size > 0;
  // Reused jobs are rewritten in the configuration, compiled again; otherwise nothing is compiled twice.
  const reusedConfig = reusesSome ? withReusedJobs(root, keep === null ? (result.mergedConfig ?? {}) : configWithOnly(result.mergedConfig ?? {}, result, keep), plan, docker) : null;
  const beforeFailedCleanup = request.shellOnFailure ? failureShellHook(request.shellOnFailure, io.stderr) : undefined;
  const dockerVolumes = reusesSome && docker ? [reuseVolume(root)] : [];
  // Registered while the pipeline is created, started once its jobs are queued (session.ts).
  const preparedRunner = prepareRunner(local, { ...request.runner, cacheDir: request.cacheDir ?? state.cacheDir, beforeFailedCleanup, dockerVolumes }, registration ?? undefined);
  preparedRunner.catch(() => undefined); // its failure is seen where it is awaited
  const creation = local.ci.pipelineCreation;
  const pipeline = await chosenPipeline(creation, input, prepared, keep, reusedConfig)
    .then((chosen) => creation.createPrepared(input, chosen))
    .catch(async (error: unknown) => {
      await preparedRunner.then((runner) => runner.discard(), () => undefined);
      return explained(error);
    });
  timelineMark('pipeline created');
  const registered = await preparedRunner;
  // Tagged jobs are the local runner's too: it takes on their tags before it asks for a job.
  const tags = await runnerTags(local, registered.token);
  const projectJobs = async () => (await runJobs(local, projects)).filter((job) => !job.retried);
  await tags.cover(await projectJobs());
  timelineMark('runner prepared');
  const runner = await registered.start();
  let runs: RunRegistry | undefined;
  try {
    // A merge request's runs supersede each other by source branch (every local request is !1).
    runs = await supersedeOlderRuns(local, state.runsDir, input.mergeRequest ? `${input.mergeRequest.sourceBranch} (merge request)` : input.ref, pipeline, io);
    // Named jobs run even when manual: naming them is asking for them.
    const play = new Set([...request.manual, ...request.jobs]);
    const statuses = async () => (await projectJobs()).map((job) => job.status);
    const outcome: ExecResult = await withProgress(request.progress, io.stdout, statuses, (stdout) =>
      followPipeline(local, projects, pipeline, { play, io: { ...io, stdout }, json: request.json, colour: request.colour, verbose: request.verbose, signal: request.signal, onJobs: (jobs) => tags.cover(jobs) }),
    );
    timelineMark('pipeline done');
    // Independent: the archives are unpacked (tar processes) while the logs are written.
    const [copied, logs] = await Promise.all([copyArtifacts(local, outcome.jobs, request.artifactsDir ?? state.artifactsDir), writeJobLogs(local, outcome.jobs, state.logsDir)]);
    for (const job of outcome.jobs) {
      const reused = plan?.reused.has(job.name) === true && job.pipelineId === pipeline.id;
      Object.assign(job, { artifacts: copied.get(job.id) ?? null, log: logs.get(job.id) ?? null, ...(plan ? { reused } : {}) });
    }
    if (reuse && plan) await recordReuse(root, result, reuse, plan, pipeline.id, outcome.jobs);
    await summariseJunitReports(local, outcome, request.json ? io.stderr : io.stdout);
    io.stdout(request.json ? `${JSON.stringify(outcome, null, 2)}\n` : `\n${formatSummary(outcome)}`);
    return outcome.exitCode;
  } finally {
    await runs?.leave();
    timelineMark('output written');
    await runner.abort('runner exec is done', 10_000);
    timelineMark('runner stopped');
  }
}

/** What a superseded run says, by what auto-cancel did to its pipeline (`workflow:auto_cancel:on_new_commit`). */
const SUPERSEDED: Record<AutoCancelOutcome, (ref: string, pid: number) => string> = {
  canceled: (ref, pid) => `superseded by a newer run of ${ref} (process ${pid}): the pipeline is canceled`,
  'jobs-canceled': (ref, pid) => `superseded by a newer run of ${ref} (process ${pid}): its interruptible jobs are canceled, the others go on`,
  kept: (ref, pid) => `a newer run of ${ref} started (process ${pid}); this one goes on: a job that is not interruptible has started`,
  disabled: (ref, pid) => `a newer run of ${ref} started (process ${pid}); this one goes on: its workflow:auto_cancel:on_new_commit is none`,
};

/**
 * Records this run, marks the older runs of the ref it supersedes, and cancels this run's
 * pipeline by GitLab's rule when a newer run marks it (superseding.ts).
 */
async function supersedeOlderRuns(local: LocalCoordinator, runsDir: string, ref: string, pipeline: PipelineRecord, io: ExecIo): Promise<RunRegistry> {
  const runs = await RunRegistry.enter(runsDir, { ref, sha: pipeline.sha });
  const shown = ref.replace(/^refs\/(?:heads|tags)\//, '');
  for (const older of await runs.supersedeOlder()) io.stderr(`runner exec: this run supersedes the run of ${shown} in process ${older.pid}\n`);
  runs.watch((newer) => {
    local.ci.redundantPipelines.cancelAsConfigured(pipeline.id).then(
      (outcome) => io.stderr(`runner exec: ${SUPERSEDED[outcome](shown, newer.pid)}\n`),
      (error: unknown) => io.stderr(`runner exec: could not cancel the superseded pipeline: ${error instanceof Error ? error.message : String(error)}\n`),
    );
  });
  return runs;
}

/**
 * What is saved: the compiled pipeline as it is, or with only the chosen jobs; with jobs to
 * reuse, their rewritten configuration compiled (with only the chosen jobs, instances too).
 */
async function chosenPipeline(
  creation: LocalCoordinator['ci']['pipelineCreation'], input: PipelineCreationInput, prepared: PreparedPipeline, keep: ReadonlySet<string> | null, reusedConfig: Record<string, unknown> | null,
): Promise<PreparedPipeline> {
  const compiled = reusedConfig === null ? prepared : await creation.prepare({ ...input, configContent: stringify(reusedConfig) });
  return keep === null ? compiled : { ...compiled, result: resultWithOnly(compiled.result, keep) };
}

async function printPayload(local: LocalCoordinator, input: PipelineCreationInput, prepared: PreparedPipeline, request: ExecRequest, io: ExecIo): Promise<number> {
  const { result } = prepared;
  const [name] = request.jobs;
  if (name === undefined) throw new ExecError('--payload needs a job name');
  const keep = chooseJobs(result, { names: [name], withNeeds: false }) ?? new Set<string>();
  const pipeline = await local.ci.pipelineCreation.createPrepared(input, { ...prepared, result: resultWithOnly(result, keep) }).catch(explained);
  io.stdout(`${JSON.stringify(await requestPayload(local, pipeline.id, name, request.runner.executor), null, 2)}\n`);
  return 0;
}

function checkCompiled(result: CompileResult, named: readonly string[]): void {
  if (result.status === 'invalid') throw new ExecError(`the CI configuration is invalid:\n${result.errors.map(formatDiagnostic).join('\n')}`);
  if (result.status === 'filtered' || result.status === 'skipped') {
    // A job asked for by name that the rules leave out: that job's refusal says more than the pipeline's.
    const leftOut = named.filter((name) => result.excludedJobs.some((job) => job.name === name || job.baseName === name));
    if (leftOut.length > 0) chooseJobs(result, { names: leftOut, withNeeds: false });
    throw new ExecError(`no pipeline: ${result.reason ?? result.status}`);
  }
}

/** The coordinator's refusals (missing CI file, bad ref, invalid configuration) as one clear error. */
function explained(error: unknown): never {
  if (isGantryError(error)) {
    const base = error.details.fields?.base;
    throw new ExecError(base && base.length > 0 ? base.join('\n') : error.message);
  }
  throw error;
}
