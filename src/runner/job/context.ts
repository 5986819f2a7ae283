/** What every stage of one job works with. */
import type { Environment, ScriptShell } from '../../executors/types.ts';
import type { JobPayload } from '../../protocol/job-payload.ts';
import type { JobSession } from './session.ts';
import type { JobTrace } from './trace.ts';
import type { BuildVariable } from './variables.ts';
import type { ShortHistory } from './sources.ts';

export interface JobSettings {
  shell: ScriptShell;
  /** Host directory for builds (shell executor) and source mirrors (docker). */
  buildsDir: string;
  /** Host directory of the local cache: `<cache_dir>/<project path>/<key>/cache.zip`. */
  cacheDir: string;
  /** Bytes. */
  outputLimit: number;
  environment: readonly string[];
  preGetSourcesScript?: string;
  /** Run after the sources are in place, after the job's own `post_get_sources_script` hook. */
  postGetSourcesScript?: string;
  /** `[runners.custom_build_dir] enabled`: unset, the executor's default (docker on, shell off). */
  customBuildDir?: boolean;
  preBuildScript?: string;
  postBuildScript?: string;
  cloneUrl?: string;
  /** The runner's `tls-ca-file`, `tls-cert-file`, `tls-key-file` (server-tls.ts). */
  tlsCaFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  debugTraceDisabled: boolean;
  /** Seconds of after_script (gitlab-runner: 5 minutes). */
  afterScriptTimeout: number;
  /** Attempts of prepare_executor for system failures (gitlab-runner: 3, 3 s apart). */
  prepareAttempts: number;
  prepareRetryDelayMs: number;
  /** `[runners.feature_flags]` (FF_TIMESTAMPS, ...); a job's variables cannot override them. */
  featureFlags?: Readonly<Record<string, boolean>>;
  /**
   * Object directories a new clone on this machine borrows (`objects/info/alternates`): its
   * fetch still asks the coordinator, but finds the objects at hand and transfers no pack
   * (runner exec: the working tree's, where the snapshot was written). Not for clones copied
   * into a container, where those paths do not exist.
   */
  sourcesAlternates?: readonly string[];
  /**
   * Commits whose whole history those alternates hold, with its length (runner exec's
   * snapshot): a new clone whose depth would cut nothing of it fetches without the depth, and
   * so without a shallow fetch's negotiation and pack.
   */
  sourcesShortHistories?: readonly ShortHistory[];
  /**
   * The refs of those alternates worth naming to a new clone's fetch (`core.alternateRefsPrefixes`;
   * runner exec: the branch your HEAD is on, which holds the snapshot's parent). Every ref of a
   * repository with a long history and many refs costs the fetch's connectivity check a walk.
   */
  sourcesAlternateRefPrefixes?: readonly string[];
  /**
   * Where a job whose scripts run elsewhere (docker) keeps its clone on this machine, the one
   * copied into its environment: `<this>/<concurrent project id>/<project path>`. Default
   * `<builds_dir>/<runner's short token>`. runner exec keeps them from run to run.
   */
  copiedSourcesRoot?: string;
}

export interface JobContext {
  payload: JobPayload;
  environment: Environment;
  session: JobSession;
  trace: JobTrace;
  settings: JobSettings;
  variables: BuildVariable[];
  /** `<namespace>/<project>` */
  projectPath: string;
  /** Where git worked on this machine (the project dir for shell, a mirror for docker). */
  sourcesDir: string;
  /** A private scratch directory on this machine, removed after the job. */
  workDir: string;
  signal: AbortSignal;
}
