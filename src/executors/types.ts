/**
 * The executor contract. An executor only prepares an environment for one job, runs scripts
 * in it (streaming their output), copies files in and out of it (as tar streams, so a remote
 * Docker host works the same as a local directory), and cleans up. Everything else (git,
 * cache, artifacts, the trace) belongs to the job engine in src/runner/job.
 */
import type { Readable, Writable } from 'node:stream';
import type { Image, Service } from '../protocol/job-payload.ts';

export type ExecutorName = 'shell' | 'docker' | 'fake';

/** The `info.features` an executor contributes to job requests (runner-protocol §3.1). */
export interface ExecutorFeatures {
  variables: boolean;
  image: boolean;
  services: boolean;
  shared: boolean;
  session: boolean;
  terminal: boolean;
}

export type ScriptShell = 'bash' | 'sh';

/** What the job engine knows about a job when it asks for an environment. */
export interface PrepareRequest {
  jobId: number;
  projectId: number;
  /** `<namespace>/<project>`, from the repository URL (or `project-<id>`). */
  projectPath: string;
  /** The runner's short token (first 8 characters of its token). */
  shortToken: string;
  /** Slot among this runner's concurrent jobs (CI_CONCURRENT_ID). */
  concurrentId: number;
  /** Slot among this runner's concurrent jobs of the same project (CI_CONCURRENT_PROJECT_ID). */
  concurrentProjectId: number;
  image: Image | null;
  services: Service[];
  /** Variables a service may see (public ones only, reference §8.5). */
  serviceVariables: Record<string, string>;
  /**
   * The job's variables (`KEY=value`, file variables left out: the script writes their files)
   * for the environment of the containers the executor creates for the job, as gitlab-runner
   * sets them, so that an image's entrypoint sees them; `info` is the environment's own.
   */
  containerVariables?: (info: EnvironmentInfo) => string[];
  /** CI_DEBUG_SERVICES on (and the runner's debug_trace_disabled off): the services' output followed into the log. */
  debugServices?: boolean;
  /** Registry credentials of the job payload, for pulls. */
  credentials: { url: string; username: string; password: string }[];
  /** Lines for the trace (warnings, pull progress); already free of secrets. */
  log: (line: string, level?: 'info' | 'warning' | 'error') => void;
  /** EXECUTOR_JOB_SECTION_ATTEMPTS (docker): how many times a stage runs again when its container vanished mid-run. */
  sectionAttempts?: number;
  signal: AbortSignal;
  /**
   * GIT_CLONE_PATH expanded with CI_BUILDS_DIR as this environment's builds directory, or null
   * when the job sets none: the project directory's place instead of the default one.
   */
  clonePath?: (buildsDir: string) => string | null;
  /** `[runners.custom_build_dir] enabled`; unset, the executor's default (docker on, shell off). */
  customBuildDir?: boolean;
  /**
   * `$VARIABLES` of a value (an image or service name) expanded with all the job's variables, the
   * runner's own with these directories, as gitlab-runner expands them; unset, values as they are.
   */
  expand?: (value: string, dirs: { buildsDir: string; projectDir: string }) => string;
  /**
   * The job fetches its sources and checks them out (GIT_STRATEGY fetch, GIT_CHECKOUT on, no
   * submodules): an executor that gives each job a clean directory may give it an earlier
   * job's checkout brought back to a fresh clone's state instead (EnvironmentInfo.recycledCheckout).
   */
  recyclableSources?: boolean;
}

export interface EnvironmentInfo {
  /** Where builds live, as scripts inside the environment see it (CI_BUILDS_DIR). */
  buildsDir: string;
  /** The project directory inside the environment (CI_PROJECT_DIR). */
  projectDir: string;
  /** The same directory on the runner's own file system, when scripts run there (shell). */
  hostProjectDir: string | null;
  /** `Running on <this>...` in the prepare_script section. */
  runningOn: string;
  /** Shared environments (shell) keep files between jobs; disposable ones (docker) do not. */
  shared: boolean;
  /** The image the job runs in, when there is one (CI_JOB_IMAGE). */
  image: string | null;
  /**
   * The project directory holds an earlier checkout's tracked files and, in `.git`, only the
   * index that lists them: nothing untracked, no settings, refs or hooks. get_sources then
   * works as in a new directory, and its checkout writes only the files that differ.
   */
  recycledCheckout?: boolean;
}

/** Which part of the job a script belongs to: user scripts run in the job image. */
export type ScriptKind = 'user' | 'helper';

export interface RunRequest {
  /** The stage name, used for naming (for example `step_script`). */
  stage: string;
  kind: ScriptKind;
  shell: ScriptShell;
  /** The complete script text (runner-protocol §8.3); the executor decides how to feed it. */
  script: string;
  /** Every byte of stdout and stderr, in order. */
  onOutput: (chunk: Buffer) => void;
  /** Aborting kills everything the script started (the process group or the container). */
  signal: AbortSignal;
}

export interface RunResult {
  exitCode: number;
}

export interface Environment {
  readonly info: EnvironmentInfo;
  /** Runs one script to its end. Rejects only for a system failure, never for a non-zero exit. */
  run(request: RunRequest): Promise<RunResult>;
  /** A hint that a user script in `shell` comes soon: an environment may get ready for it meanwhile (docker starts its container). */
  prestart?(shell: ScriptShell): void;
  /** Unpacks a tar stream into `directory` (inside the environment), creating it when missing. */
  copyIn(tar: Readable, directory: string): Promise<void>;
  /** A tar stream of `directory` (inside the environment), entries relative to it; null when absent. */
  copyOut(directory: string): Promise<Readable | null>;
  /**
   * An interactive shell in the environment once the job's scripts are done, before
   * `cleanup` (runner exec's --shell-on-failure); answers its exit code. Executors whose
   * scripts run on this machine have none: the caller starts a shell in `hostProjectDir`.
   */
  openShell?(request: InteractiveShellRequest): Promise<number>;
  /** Removes everything this environment created; safe to call twice and after a failure. */
  cleanup(): Promise<void>;
}

export interface InteractiveShellRequest {
  /** The job's variables; a file variable is written to a file the variable then names, as in the job. */
  variables: ReadonlyArray<{ key: string; value: string; file?: boolean }>;
  stdin: Readable;
  stdout: Writable;
  /** The terminal's size when stdin and stdout are one (the shell then gets a terminal too); null: pipes. */
  tty: { columns: number; rows: number } | null;
}

export interface Executor {
  readonly name: ExecutorName;
  readonly features: ExecutorFeatures;
  prepare(request: PrepareRequest): Promise<Environment>;
  /** Removes what an earlier runner process left behind (crash, kill); called once at start. */
  sweep?(): Promise<number>;
}

/** A failure of the environment itself (image missing, daemon down), not of the user's script. */
export class ExecutorError extends Error {
  readonly kind: 'system' | 'image' | 'config';
  constructor(message: string, kind: 'system' | 'image' | 'config' = 'system', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExecutorError';
    this.kind = kind;
  }
}
