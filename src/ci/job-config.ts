/** The validated shape of one job, before only/except/rules decide whether it runs. */
import type {
  ArtifactsDefinition,
  AutoCancelConfig,
  JobHooks,
  JobIdTokens,
  ReleaseDefinition,
  CacheDefinition,
  CrossPipelineNeed,
  EnvironmentDefinition,
  ImageDefinition,
  JobNeed,
  JobWhen,
  RetryDefinition,
  ServiceDefinition,
  TriggerDefinition,
  YamlVariable,
} from './model.ts';

export interface PolicyConfig {
  refs: string[] | null;
  variables: string[] | null;
  changes: string[] | null;
  kubernetes: string | null;
}

export type RuleWhen = JobWhen | 'never';

/** A rule's `changes`: its globs, and the ref they are compared with (`compare_to`, GitLab 15.3). */
export interface ChangesClause {
  paths: string[];
  compareTo: string | null;
}

export interface RuleConfig {
  if: string | null;
  changes: ChangesClause | null;
  exists: string[] | null;
  when: RuleWhen | null;
  startIn: string | null;
  allowFailure: boolean | null;
  variables: YamlVariable[] | null;
  needs: JobNeed[] | null;
  interruptible: boolean | null;
  /** A workflow rule's `auto_cancel`, over `workflow:auto_cancel` key by key. */
  autoCancel: AutoCancelConfig | null;
}

export type ParallelConfig =
  | { kind: 'number'; total: number }
  | { kind: 'matrix'; combinations: YamlVariable[][] };

/** A cache whose key may still need `key:files` resolution. */
export interface CacheConfig extends Omit<CacheDefinition, 'key'> {
  key: string | { files: string[]; prefix: string | null };
}

export interface JobConfig {
  name: string;
  stage: string;
  script: string[];
  beforeScript: string[];
  afterScript: string[];
  image: ImageDefinition | null;
  services: ServiceDefinition[];
  variables: YamlVariable[];
  cache: CacheConfig[];
  artifacts: ArtifactsDefinition | null;
  environment: EnvironmentDefinition | null;
  coverage: string | null;
  retry: RetryDefinition;
  timeout: number | null;
  interruptible: boolean | null;
  /** `hooks`, absent when none. */
  hooks?: JobHooks;
  /** `id_tokens`, absent when none. */
  idTokens?: JobIdTokens;
  /** `release`, absent when none. */
  release?: ReleaseDefinition;
  resourceGroup: string | null;
  tags: string[];
  /** `null` when the job does not set `when` (rules fall back to on_success). */
  when: JobWhen | null;
  startIn: string | null;
  /** `null` when not set: the default depends on `when` (reference §2.3). */
  allowFailure: boolean | null;
  /** `allow_failure: {exit_codes: ...}`: the failures allowed after all (null: none). */
  allowFailureExitCodes: number[] | null;
  needs: JobNeed[] | null;
  /** `needs` of jobs in other pipelines of the hierarchy (`pipeline:` and `job:`); absent when none. */
  crossPipelineNeeds?: CrossPipelineNeed[];
  dependencies: string[] | null;
  only: PolicyConfig | null;
  except: PolicyConfig | null;
  rules: RuleConfig[] | null;
  parallel: ParallelConfig | null;
  /** Set for bridge jobs, whose build-only fields are then empty. */
  trigger: TriggerDefinition | null;
}

export interface WorkflowConfig {
  rules: RuleConfig[] | null;
  /** `workflow:name` before its variables are expanded. */
  name: string | null;
  autoCancel: AutoCancelConfig | null;
}
