/**
 * The job payload a coordinator answers `POST /api/v4/jobs/request` with (201 body), as
 * gitlab-runner v13.x decodes it (runner-protocol §3.4). Field names are the wire names.
 */

export interface JobVariable {
  key: string;
  value: string;
  public: boolean;
  masked: boolean;
  /** Present (true) only for file-type variables: the runner writes the value to a file. */
  file?: true;
  /** Present (true) only for variables the runner must not expand. */
  raw?: true;
}

export interface JobInfo {
  name: string;
  stage: string;
  project_id: number;
  project_name: string;
}

export type RefType = 'branch' | 'tag';

export interface GitInfo {
  repo_url: string;
  ref: string;
  sha: string;
  before_sha: string;
  ref_type: RefType;
  refspecs: string[];
  depth: number;
}

export interface RunnerInfo {
  timeout: number;
  runner_session_url: string | null;
}

export type StepName = 'script' | 'release' | 'after_script';
export type StepWhen = 'on_success' | 'on_failure' | 'always';

export interface Step {
  name: StepName;
  script: string[];
  timeout: number;
  when: StepWhen;
  allow_failure: boolean;
}

export interface Port {
  number: number;
  protocol?: string;
  name?: string;
}

/** `image:docker` / `services:docker` options, as GitLab sends them (the user only, here). */
export interface ExecutorOptions {
  docker?: { user?: string };
}

/** The policies gitlab-runner knows; a payload may name others (the runner refuses them). */
export type PullPolicy = 'always' | 'if-not-present' | 'never';

export interface Image {
  name: string;
  entrypoint?: string[] | null;
  ports?: Port[];
  executor_opts?: ExecutorOptions;
  /** `image:pull_policy` (GitLab 15.1), always a list; absent or null: the runner's own. */
  pull_policy?: string[] | null;
}

export interface Service {
  name: string;
  entrypoint: string[] | null;
  ports: Port[];
  alias: string | null;
  command: string[] | null;
  /** `services:variables`, sent when the service has some, as GitLab does. */
  variables?: { key: string; value: string }[];
  executor_opts?: ExecutorOptions;
  /** `services:pull_policy` (GitLab 15.1), as for the image. */
  pull_policy?: string[] | null;
}

export type ArtifactWhen = 'on_success' | 'on_failure' | 'always';

export interface Artifact {
  name: string;
  untracked?: boolean;
  paths: string[];
  exclude?: string[];
  when: ArtifactWhen;
  expire_in?: string | null;
  artifact_type: string;
  artifact_format: 'zip' | 'gzip' | 'raw';
}

export type CachePolicy = 'pull' | 'push' | 'pull-push';

export interface Cache {
  key: string;
  untracked: boolean;
  paths: string[];
  /**
   * As written in the CI file: a CachePolicy or a `$VARIABLE`, which the runner expands (empty
   * is `pull-push`; anything else fails the job, as gitlab-runner's CheckPolicy does).
   */
  policy: string;
  when: ArtifactWhen;
  /** Keys to restore from, in order, when `key` has none. */
  fallback_keys?: string[];
}

export interface Credentials {
  type: 'registry';
  url: string;
  username: string;
  password: string;
}

export interface DependencyArtifactsFile {
  filename: string;
  size: number;
}

export interface Dependency {
  id: number;
  name: string;
  token: string;
  artifacts_file?: DependencyArtifactsFile;
}

/** gitlab-runner's `Hook`: commands run at a point of the job (`pre_get_sources_script`, `post_get_sources_script`). */
export interface Hook {
  name: string;
  script: string[];
}

export interface Features {
  trace_sections: boolean;
  failure_reasons?: string[];
  /** GitLab 16+: prefixes of tokens the runner masks in the log (`glpat-…`). */
  token_mask_prefixes?: string[];
}

export interface JobPayload {
  id: number;
  token: string;
  allow_git_fetch: boolean;
  job_info: JobInfo;
  git_info: GitInfo;
  runner_info: RunnerInfo;
  variables: JobVariable[];
  steps: Step[];
  image: Image | null;
  services: Service[];
  artifacts: Artifact[];
  cache: Cache[];
  credentials: Credentials[];
  dependencies: Dependency[];
  features: Features;
  /** Absent when the job has none (GitLab 15.6+ sends `[]` then). */
  hooks?: Hook[];
}
