/**
 * The two halves `runner exec` runs in its own process, as `coordinator serve` and `runner run`
 * would: a coordinator on SQLite in a temporary data directory, listening on loopback only
 * with a random root token, and a runner registered to it over loopback HTTP. The snapshot's
 * commit is made readable in the bare repository of a project of that coordinator by lending
 * it the user's object database (git alternates).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'smol-toml';
import { freePort } from '../cli/commands/free-port.ts';
import type { Coordinator } from '../coordinator/app.ts';
import type { CiServices } from '../coordinator/wiring-ci.ts';
import type { RunnerEntry } from '../runner/config/config.ts';
import type { RunnerDaemon } from '../runner/daemon/daemon.ts';
import type { BeforeFailedCleanup } from '../runner/job/engine.ts';
import { silentLogger } from '../shared/logger.ts';
import { removeTree } from '../shared/remove-tree.ts';
import type { ProjectRecord, UserRecord } from '../storage/types.ts';
import { ExecError } from './errors.ts';
import { timelineMark } from '../runner/timeline.ts';
import type { HeadInfo, Snapshot } from './git.ts';

const HOST = '127.0.0.1';
/** How often a running job's new log lines reach the coordinator, and so the terminal. */
const LIVE_TRACE_SECONDS = 0.2;

let stack: Promise<typeof import('./stack.ts')> | undefined;

/**
 * The coordinator's and the runner's modules (most of what `runner exec` loads), loaded once:
 * runExec starts this while its first git process starts, so that they are evaluated while git
 * reads the tree (from the bundle they are compiled already, but evaluating them is CPU time of
 * its own). Whoever needs them awaits this (and sees its failure).
 */
export function loadStack(): Promise<typeof import('./stack.ts')> {
  if (stack === undefined) {
    stack = import('./stack.ts');
    stack.catch(() => undefined);
  }
  return stack;
}

export interface ExecRunnerSettings {
  executor: 'shell' | 'docker';
  /** Default image of docker jobs without `image:`. */
  dockerImage?: string;
  concurrency: number;
  /** The runner's cache_dir (kept across runs). */
  cacheDir?: string;
  /** `[runners.docker] volumes` of the docker jobs (--reuse's records). */
  dockerVolumes?: readonly string[];
  /**
   * The jobs' builds directory, kept across runs (builds-lease.ts): the shell jobs' slots, and
   * under `docker/` the docker jobs' clones on this machine; unset, the run's temporary directory.
   */
  buildsDir?: string;
  /** Called when a job fails, before its environment is cleaned up (--shell-on-failure). */
  beforeFailedCleanup?: BeforeFailedCleanup;
}

export interface LocalCoordinator {
  coordinator: Coordinator;
  ci: CiServices;
  url: string;
  root: UserRecord;
  rootToken: string;
  dataDir: string;
  /** The working tree's object database, once pushProject lent it to the project (the snapshot is there). */
  lentObjects: string | null;
  /** The snapshot once setSnapshotRefs set the refs on it (git.ts). */
  snapshot: Snapshot | null;
  close(): Promise<void>;
}

/**
 * The schema image `scripts/bundle-exec.mjs` writes beside the compiled package
 * (`dist/exec-schema.sqlite3`: an empty database with every migration applied). From the
 * sources there is none, and the in-memory database is migrated as usual.
 */
const SCHEMA_IMAGE = new URL('../exec-schema.sqlite3', import.meta.url);

async function schemaImage(): Promise<Buffer | undefined> {
  return readFile(SCHEMA_IMAGE).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

/** A coordinator of its own in a fresh temporary directory; `close` stops it and removes the directory. */
export async function startLocalCoordinator(): Promise<LocalCoordinator> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'gantry-exec-'));
  const sqliteImage = await schemaImage();
  const { createCoordinator, ciServicesOf } = await loadStack();
  timelineMark('coordinator modules loaded');
  const rootToken = `glpat-${randomBytes(20).toString('hex')}`;
  const port = await freePort(HOST);
  const url = `http://${HOST}:${port}`;
  let coordinator: Coordinator | undefined;
  try {
    // In memory: the database lives as long as the process, and nothing is written to disk for it;
    // it starts from the schema image when there is one (the migrations then find nothing to do).
    // Only the API the runner and this module call (the runner protocol, projects, CI variables).
    // The person at the terminal reads every job's log as it runs: the runner sends it every
    // LIVE_TRACE_SECONDS, not every 3 s (the server's answer while a log is watched).
    const liveTraces = { intervalSeconds: LIVE_TRACE_SECONDS, watchedIntervalSeconds: LIVE_TRACE_SECONDS };
    coordinator = await createCoordinator({
      dataDir, databaseUrl: ':memory:', sqliteImage, externalUrl: url, rootToken, logger: silentLogger(), shutdownGraceMs: 1_000, routes: 'local-run',
      ci: { runnerJobs: { traces: liveTraces } },
    });
    const ci = ciServicesOf(coordinator);
    // The first compile follows the push: its worker starts meanwhile.
    void ci.warmCompiler();
    await coordinator.app.listen({ port, host: HOST });
    const root = await coordinator.context.stores.users.findByUsername('root');
    if (!root) throw new Error('the local coordinator has no root user');
    const started = coordinator;
    timelineMark('coordinator listening');
    return {
      coordinator, ci, url, root, rootToken, dataDir, lentObjects: null, snapshot: null,
      async close() {
        await started.close();
        await removeTree(dataDir);
      },
    };
  } catch (error) {
    await coordinator?.close();
    await removeTree(dataDir);
    throw error;
  }
}

/**
 * A JSON POST to the local coordinator's API (as root unless `headers` say otherwise), by the
 * HTTP client the runner loads anyway (undici, from the bundle's code cache): Node's own fetch
 * compiles its own request path and the web streams of its bodies at first use, about 30 ms of
 * CPU more in all (measured).
 */
export async function postToLocalApi(local: LocalCoordinator, apiPath: string, body: unknown, headers: Record<string, string> = { 'PRIVATE-TOKEN': local.rootToken }): Promise<{ ok: boolean; status: number; text: string }> {
  const { request } = await loadStack();
  const answer = await request(`${local.url}/api/v4${apiPath}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { ok: answer.statusCode >= 200 && answer.statusCode < 300, status: answer.statusCode, text: await answer.body.text() };
}

/** The snapshot's commit on the default branch and on the ref asked for, in the project's repository. */
export async function setSnapshotRefs(
  local: LocalCoordinator,
  project: ProjectRecord,
  source: { snapshot: Snapshot; defaultBranch: string; ref: { name: string; kind: 'branch' | 'tag' }; tags?: HeadInfo['tags'] },
): Promise<void> {
  const repository = local.coordinator.context.repositories.open(project.id);
  // The refs are set in the repository directly: a branch pushed would start a push pipeline.
  const { sha } = source.snapshot;
  await repository.createBranch(source.defaultBranch, sha);
  if (source.ref.kind === 'tag') await repository.createTag(source.ref.name, sha, null, { name: local.root.name, email: local.root.email });
  else if (source.ref.name !== source.defaultBranch) await repository.createBranch(source.ref.name, sha);
  // Your tags, as the server's repository has them (a job's fetch follows those in its history:
  // `git describe`); a tag `--tag` names is the snapshot's. Their objects are yours, lent.
  const tags = (source.tags ?? []).filter((tag) => !(source.ref.kind === 'tag' && tag.name === source.ref.name));
  if (tags.length > 0) await repository.importTags(tags);
  local.snapshot = source.snapshot;
}

/** A runner registered and configured, not yet asking for jobs. */
export interface PreparedRunner {
  /** Its token (runner-tags.ts finds it by this). */
  token: string;
  /** Starts polling; the daemon's `abort` ends it. */
  start(): Promise<RunnerDaemon>;
  /** Forgets it without starting it (the pipeline could not be created). */
  discard(): Promise<void>;
}

/**
 * A runner registered with the instance token and configured, to be started once the jobs
 * are queued: its first request then takes one at once (an earlier one finds none and waits
 * check_interval), and the registration is done while the pipeline is created.
 */
export async function prepareRunner(local: LocalCoordinator, settings: ExecRunnerSettings, registration?: Promise<string>): Promise<PreparedRunner> {
  const token = await (registration ?? registerLocalRunner(local));
  const daemon = await startRunner(local, settings, { start: false, registration: Promise.resolve(token) });
  return {
    token,
    start: async () => {
      await daemon.start();
      return daemon;
    },
    discard: async () => {
      await daemon.abort('runner exec created no pipeline', 10_000);
    },
  };
}

/** Registers `runner exec`'s runner with the instance token; answers its token. */
export async function registerLocalRunner(local: LocalCoordinator): Promise<string> {
  const { INSTANCE_TOKEN_SETTING, Transport, registerRunner, runnerInfo, userAgent } = await loadStack();
  const registrationToken = (await local.coordinator.context.stores.settings.load())?.settings[INSTANCE_TOKEN_SETTING];
  if (typeof registrationToken !== 'string') throw new Error('the local coordinator has no runner registration token');
  const transport = new Transport({ url: local.url, userAgent: userAgent() });
  const registered = await registerRunner(transport, {
    registrationToken, description: 'gantry-exec', tagList: [], runUntagged: true, locked: false, active: true, info: runnerInfo(),
  }).finally(() => transport.close());
  if (registered.kind !== 'registered') throw new ExecError('the local runner could not register');
  return registered.token;
}

/**
 * A runner registered with the instance token (or by `registration`, started earlier) and
 * polling (unless `start` is false); `abort` ends it.
 */
export async function startRunner(local: LocalCoordinator, settings: ExecRunnerSettings, options: { start: boolean; registration?: Promise<string> } = { start: true }): Promise<RunnerDaemon> {
  const { parseRunnerConfig, RunnerDaemon, newSystemId, ShellExecutor, buildsDirOf, executorOf } = await loadStack();
  const token = await (options.registration ?? registerLocalRunner(local));
  const workingDirectory = path.join(local.dataDir, 'runner');
  const entry: Record<string, unknown> = {
    name: 'gantry-exec', url: local.url, token, executor: settings.executor,
    limit: settings.concurrency, request_concurrency: settings.concurrency,
  };
  if (settings.cacheDir !== undefined) entry.cache_dir = settings.cacheDir;
  // A CI file's GIT_CLONE_PATH (a Go project's GOPATH layout, say) works here as on a docker
  // runner: the local runner is yours, so the shell executor allows it too (gitlab-runner's default is off).
  entry.custom_build_dir = { enabled: true };
  if (settings.executor === 'docker') {
    // Every policy a CI file can name is allowed (see docs/exec.md "Pull policies").
    entry.docker = {
      image: settings.dockerImage ?? 'gantry/debian-git:bookworm', pull_policy: ['if-not-present'], allowed_pull_policies: ['always', 'if-not-present', 'never'], volumes: [...(settings.dockerVolumes ?? [])],
    };
  }
  const text = stringify({ concurrent: settings.concurrency, check_interval: 1, runners: [entry] });
  const { config } = parseRunnerConfig(text, 'runner exec');
  // Every shell job in a clean build directory of its slot (a docker job has a fresh build volume anyway).
  const executorFor = (runnerEntry: RunnerEntry) =>
    runnerEntry.executor === 'shell'
      ? new ShellExecutor({ buildsDir: settings.buildsDir ?? buildsDirOf(runnerEntry, workingDirectory), isolated: true })
      : // A job's `always` pull that fails (no registry reachable) runs with the engine's image.
        executorOf({ ...runnerEntry, docker: { ...runnerEntry.docker, alwaysFallsBackToLocal: true } }, workingDirectory);
  // A shell job's new clone borrows the working tree's objects: its fetch (through the
  // coordinator, as always) then finds the snapshot at hand and transfers no pack.
  const sourcesAlternates = local.lentObjects === null ? [] : [local.lentObjects];
  // A fetch of the snapshot needs no depth that would cut nothing of its history (no shallow negotiation, no pack).
  const sourcesShortHistories = local.snapshot?.historyLength == null ? [] : [{ sha: local.snapshot.sha, commits: local.snapshot.historyLength }];
  // Your other refs would only cost each fetch's connectivity check a walk from every one of them.
  const sourcesAlternateRefPrefixes = local.snapshot?.branch ? [`refs/heads/${local.snapshot.branch}`] : [];
  const daemon = new RunnerDaemon({
    config, logger: silentLogger(), workingDirectory, executorFor, traceUpdateInterval: LIVE_TRACE_SECONDS, systemId: await newSystemId(), beforeFailedCleanup: settings.beforeFailedCleanup,
    sourcesAlternates, sourcesShortHistories, sourcesAlternateRefPrefixes,
    // A docker job's clone here is written by git alone (its job works on a copy in the
    // container): kept, the next run's fetch brings only what changed and its checkout writes only that.
    ...(settings.executor === 'docker' && settings.buildsDir !== undefined ? { copiedSourcesRoot: path.join(settings.buildsDir, 'docker') } : {}),
    // No held keep-alive per job: nothing cancels these jobs through the coordinator (Ctrl-C
    // stops the runner itself; trace updates would still bring a cancel), and the held request
    // cost each job a request, its hold and its hang-up (10–20 ms of CPU).
    jobWatchSeconds: 0,
  });
  if (options.start) await daemon.start();
  return daemon;
}

/**
 * The snapshot and the coordinator's start run together (git works in its own processes while
 * the coordinator starts); when one fails, what the other started is closed.
 */
export async function startedTogether<T, C extends { close(): Promise<void> }>(snapshot: Promise<T>, coordinator: Promise<C>): Promise<[T, C]> {
  const [taken, started] = await Promise.allSettled([snapshot.finally(() => timelineMark('snapshot committed')), coordinator]);
  if (taken.status === 'fulfilled' && started.status === 'fulfilled') return [taken.value, started.value];
  if (started.status === 'fulfilled') await started.value.close();
  throw taken.status === 'rejected' ? taken.reason : (started as PromiseRejectedResult).reason;
}
