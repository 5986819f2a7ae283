/**
 * JobDefinition + ids/tokens/git/server info → the runner-protocol job payload (§3.4),
 * variables in the precedence order of ci-config §7.2 (later entries win).
 */
import { releaseScript } from './release-script.ts';
import type { Artifact, Cache, JobPayload, JobVariable, Step } from '../protocol/job-payload.ts';
import type { ArtifactsDefinition, BuildJobDefinition } from './model.ts';
import type { PayloadGitInfo, PayloadIds, PayloadPipelineInfo, PayloadRunnerInfo, PayloadServerInfo, PayloadTokens } from './payload-types.ts';
import { predefinedJobVariables, publicVariable, userIdentityVariables } from './predefined-job-variables.ts';
import { environmentSlug } from './slug.ts';
import { environmentTier } from './environment-tier.ts';
import { DEFAULT_JOB_TIMEOUT_SECONDS } from './job-timeout.ts';
import { applicableUserVariables } from './user-variables.ts';

export type { PayloadGitInfo, PayloadIds, PayloadPipelineInfo, PayloadRunnerInfo, PayloadServerInfo, PayloadTokens };

const DEFAULT_DEPTH = 50;

/** File name and format of report artifacts (GitLab `Ci::JobArtifact` DEFAULT_FILE_NAMES / formats). */
const REPORT_FILES: Record<string, [string, Artifact['artifact_format']]> = {
  junit: ['junit.xml', 'gzip'],
  cobertura: ['cobertura-coverage.xml', 'gzip'],
  jacoco: ['jacoco.xml', 'gzip'],
  dotenv: ['.env', 'gzip'],
  metrics: ['metrics.txt', 'gzip'],
  codequality: ['gl-code-quality-report.json', 'raw'],
  sast: ['gl-sast-report.json', 'raw'],
  secret_detection: ['gl-secret-detection-report.json', 'raw'],
  dependency_scanning: ['gl-dependency-scanning-report.json', 'raw'],
  container_scanning: ['gl-container-scanning-report.json', 'raw'],
  dast: ['gl-dast-report.json', 'raw'],
  license_scanning: ['gl-license-scanning-report.json', 'raw'],
  performance: ['performance.json', 'raw'],
  browser_performance: ['browser-performance.json', 'raw'],
  load_performance: ['load-performance.json', 'raw'],
  terraform: ['tfplan.json', 'raw'],
  accessibility: ['gl-accessibility.json', 'raw'],
  requirements: ['requirements.json', 'raw'],
};

/**
 * Only for jobs a runner runs: a bridge (`trigger:`) never reaches a runner, so passing one
 * is a type error and, for definitions read back from storage, a thrown error.
 */
export function toJobPayload(
  job: BuildJobDefinition,
  ids: PayloadIds,
  tokens: PayloadTokens,
  gitInfo: PayloadGitInfo,
  serverInfo: PayloadServerInfo,
  pipeline: PayloadPipelineInfo = {},
): JobPayload {
  // Definitions stored before `trigger` existed have none: those are builds too.
  const trigger: unknown = (job as { trigger?: unknown }).trigger;
  if (trigger !== null && trigger !== undefined) {
    throw new TypeError(`toJobPayload: job "${job.name}" is a bridge (trigger:); bridges create downstream pipelines and never go to runners`);
  }
  const variables = jobVariables(job, ids, tokens, gitInfo, serverInfo, pipeline);
  const timeout = job.timeout ?? serverInfo.defaultTimeout ?? DEFAULT_JOB_TIMEOUT_SECONDS;
  const depthVariable = job.variables.find((variable) => variable.key === 'GIT_DEPTH');
  const depth = depthVariable && /^\d+$/.test(depthVariable.value) ? Number(depthVariable.value) : (gitInfo.depth ?? DEFAULT_DEPTH);

  return {
    id: ids.jobId,
    token: tokens.jobToken,
    allow_git_fetch: serverInfo.allowGitFetch ?? true,
    job_info: { name: job.name, stage: job.stage, project_id: ids.projectId, project_name: gitInfo.projectPath.split('/').pop() ?? '' },
    git_info: {
      repo_url: gitInfo.repoUrl,
      ref: gitInfo.ref,
      sha: gitInfo.sha,
      before_sha: gitInfo.beforeSha ?? '0000000000000000000000000000000000000000',
      ref_type: gitInfo.refType,
      refspecs: gitInfo.refspecs ?? refspecs(ids.pipelineId, gitInfo, depth, pipeline.mergeRequest?.refPath),
      depth,
    },
    runner_info: { timeout, runner_session_url: null },
    variables,
    steps: steps(job, timeout),
    // Image and service names, cache keys and policies and the artifact name go as written,
    // `$VARIABLES` and all, as GitLab sends them (its options, unexpanded): the runner expands them.
    image: job.image
      ? {
          name: job.image.name,
          ...(job.image.entrypoint ? { entrypoint: job.image.entrypoint } : {}),
          ports: [],
          ...(job.image.docker ? { executor_opts: { docker: job.image.docker } } : {}),
          ...(job.image.pullPolicy ? { pull_policy: job.image.pullPolicy } : {}),
        }
      : null,
    services: job.services.map((service) => ({
      name: service.name,
      entrypoint: service.entrypoint,
      ports: [],
      alias: service.alias,
      command: service.command,
      ...(service.variables ? { variables: service.variables.map(({ key, value }) => ({ key, value })) } : {}),
      ...(service.docker ? { executor_opts: { docker: service.docker } } : {}),
      ...(service.pullPolicy ? { pull_policy: service.pullPolicy } : {}),
    })),
    artifacts: job.artifacts ? artifacts(job.artifacts) : [],
    cache: job.cache.map(
      (cache): Cache => ({
        key: cache.key,
        untracked: cache.untracked,
        paths: cache.paths,
        policy: cache.policy,
        when: cache.when,
        ...(cache.fallbackKeys ? { fallback_keys: cache.fallbackKeys } : {}),
      }),
    ),
    credentials: serverInfo.registry
      ? [{ type: 'registry', url: serverInfo.registry, username: 'gitlab-ci-token', password: tokens.jobToken }]
      : [],
    dependencies: tokens.dependencies ?? [],
    features: { trace_sections: true },
    ...(job.hooks?.preGetSourcesScript?.length ? { hooks: [{ name: 'pre_get_sources_script', script: job.hooks.preGetSourcesScript }] } : {}),
  };
}

function jobVariables(
  job: BuildJobDefinition,
  ids: PayloadIds,
  tokens: PayloadTokens,
  git: PayloadGitInfo,
  server: PayloadServerInfo,
  pipeline: PayloadPipelineInfo,
): JobVariable[] {
  const predefined = [...predefinedJobVariables(job, ids, tokens, git, server, pipeline), ...runnerVariables(pipeline.runner)];
  const yaml = job.variables.map((variable): JobVariable => ({
    ...publicVariable(variable.key, variable.value),
    ...(variable.raw ? { raw: true as const } : {}),
  }));
  const environment: JobVariable[] = [];
  let environmentName: string | null = null;
  if (job.environment) {
    // The name its pipeline saved (expanded with the project's and pipeline's variables too), as GitLab's `expanded_environment_name`.
    const name = pipeline.environmentName ?? expander([...predefined, ...yaml])(job.environment.name);
    environmentName = name;
    environment.push(
      publicVariable('CI_ENVIRONMENT_NAME', name),
      publicVariable('CI_ENVIRONMENT_SLUG', environmentSlug(name)),
      publicVariable('CI_ENVIRONMENT_ACTION', job.environment.action),
      publicVariable('CI_ENVIRONMENT_TIER', environmentTier(name, job.environment.deploymentTier ?? pipeline.environmentTier)),
    );
  }
  const scopedTo = pipeline.environmentName !== undefined ? pipeline.environmentName : environmentName;
  const user = applicableUserVariables(pipeline.variables ?? [], git.refProtected ?? false, scopedTo).map((variable): JobVariable => ({
    key: variable.key,
    value: variable.value,
    public: false,
    masked: variable.masked ?? false,
    ...(variable.file ? { file: true as const } : {}),
    ...(variable.raw ? { raw: true as const } : {}),
  }));
  // The runner expands CI_ENVIRONMENT_URL itself, so it goes last and unexpanded. Without a
  // `url` of its own, a job gets its environment's, as a stop or verify job does on GitLab.
  const url = job.environment ? job.environment.url ?? pipeline.environmentUrl : undefined;
  const environmentUrl = url ? [publicVariable('CI_ENVIRONMENT_URL', url)] : [];
  return [...predefined, ...environment, ...yaml, ...userIdentityVariables(pipeline), ...user, ...environmentUrl];
}

/** GitLab 13.x: after the build's, project's and pipeline's own variables; the tags as its tag list prints them, `docker, linux`. */
function runnerVariables(runner: PayloadRunnerInfo | undefined): JobVariable[] {
  if (!runner) return [];
  return [
    publicVariable('CI_RUNNER_ID', String(runner.id)),
    publicVariable('CI_RUNNER_DESCRIPTION', runner.description),
    publicVariable('CI_RUNNER_TAGS', runner.tags.join(', ')),
  ];
}

function steps(job: BuildJobDefinition, timeout: number): Step[] {
  const list: Step[] = [
    { name: 'script', script: [...job.beforeScript, ...job.script], timeout, when: 'on_success', allow_failure: false },
  ];
  if (job.release) list.push({ name: 'release', script: releaseScript(job.release), timeout, when: 'on_success', allow_failure: false });
  if (job.afterScript.length > 0) {
    list.push({ name: 'after_script', script: job.afterScript, timeout, when: 'always', allow_failure: true });
  }
  return list;
}

function artifacts(definition: ArtifactsDefinition): Artifact[] {
  const list: Artifact[] = [];
  if (definition.paths.length > 0 || definition.untracked) {
    list.push({
      name: definition.name ?? 'artifacts',
      untracked: definition.untracked,
      paths: definition.paths,
      ...(definition.exclude.length > 0 ? { exclude: definition.exclude } : {}),
      when: definition.when,
      expire_in: definition.expireIn,
      artifact_type: 'archive',
      artifact_format: 'zip',
    });
  }
  for (const [type, paths] of Object.entries(definition.reports)) {
    const [fileName, format] = REPORT_FILES[type] ?? [type, 'raw'];
    list.push({
      name: fileName,
      paths,
      when: 'always',
      ...(definition.expireIn === null ? {} : { expire_in: definition.expireIn }),
      artifact_type: type,
      artifact_format: format,
    });
  }
  return list;
}

/** A merge request pipeline fetches the request's ref path (kept in the target repository), as it is not a branch. */
function refspecs(pipelineId: number, git: PayloadGitInfo, depth: number, mergeRequestRef?: string): string[] {
  const persistent = `+refs/pipelines/${pipelineId}:refs/pipelines/${pipelineId}`;
  const requestRef = mergeRequestRef === undefined ? [] : [`+${mergeRequestRef}:${mergeRequestRef}`];
  if (depth === 0) return [persistent, ...requestRef, '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*'];
  if (requestRef.length > 0) return [persistent, ...requestRef];
  return [
    persistent,
    git.refType === 'tag' ? `+refs/tags/${git.ref}:refs/tags/${git.ref}` : `+refs/heads/${git.ref}:refs/remotes/origin/${git.ref}`,
  ];
}

/**
 * `$NAME` / `${NAME}` in `text` from the variables (later entries win), each variable's value
 * expanded once itself (raw ones as they are; a name it does not know left as written), as
 * GitLab expands an environment's name: a variable it does not know is empty there.
 */
function expander(variables: readonly { key: string; value: string; raw?: boolean }[]): (text: string) => string {
  const substitute = (text: string, map: ReadonlyMap<string, string>, missing: 'keep' | 'empty'): string =>
    text.replace(/\$(?:\{(\w+)\}|(\w+))/g, (match: string, braced: string | undefined, bare: string | undefined) =>
      map.get(braced ?? bare ?? '') ?? (missing === 'keep' ? match : ''));
  const values = new Map(variables.map((variable) => [variable.key, variable.value]));
  const expanded = new Map(variables.map((variable) => [variable.key, variable.raw ? variable.value : substitute(variable.value, values, 'keep')]));
  return (text) => substitute(text, expanded, 'empty');
}
