/** The predefined CI_* variables of a job (ci-config §7.1, runner-protocol §10.1), in wire order. */
import type { JobVariable } from '../protocol/job-payload.ts';
import type { JobDefinition } from './model.ts';
import {
  commitDescription,
  commitTitle,
  projectName,
  openMergeRequestsVariable,
  projectNamespace,
  serverBase,
  serverVariables,
  ZERO_SHA,
} from './pipeline-variables.ts';
import { mergeRequestVariables } from './merge-request-variables.ts';
import { refSlug } from './slug.ts';
import type { PayloadGitInfo, PayloadIds, PayloadPipelineInfo, PayloadServerInfo, PayloadTokens } from './payload-types.ts';

export function publicVariable(key: string, value: string): JobVariable {
  return { key, value, public: true, masked: false };
}

function secretVariable(key: string, value: string, masked: boolean): JobVariable {
  return { key, value, public: false, masked };
}

export function predefinedJobVariables(
  job: JobDefinition,
  ids: PayloadIds,
  tokens: PayloadTokens,
  git: PayloadGitInfo,
  server: PayloadServerInfo,
  pipeline: PayloadPipelineInfo,
): JobVariable[] {
  const base = serverBase(server);
  const projectUrl = `${base}/${git.projectPath}`;
  const message = git.commitMessage ?? '';
  // A merge request pipeline's ref is refs/merge-requests/<iid>/head; GitLab names its source branch.
  const refName = pipeline.mergeRequest?.sourceBranch ?? git.ref;
  const pub = (key: string, value: string | number | undefined | null): JobVariable[] =>
    value === undefined || value === null ? [] : [publicVariable(key, String(value))];

  const variables: JobVariable[] = [
    ...pub('CI_PIPELINE_ID', ids.pipelineId),
    ...pub('CI_PIPELINE_URL', `${projectUrl}/-/pipelines/${ids.pipelineId}`),
    ...pub('CI_JOB_ID', ids.jobId),
    ...pub('CI_JOB_URL', `${projectUrl}/-/jobs/${ids.jobId}`),
    secretVariable('CI_JOB_TOKEN', tokens.jobToken, true),
    ...pub('CI_JOB_STARTED_AT', pipeline.jobStartedAt),
    ...pub('CI_BUILD_ID', ids.jobId),
    secretVariable('CI_BUILD_TOKEN', tokens.jobToken, true),
  ];
  if (server.registry) {
    variables.push(
      publicVariable('CI_REGISTRY_USER', 'gitlab-ci-token'),
      secretVariable('CI_REGISTRY_PASSWORD', tokens.jobToken, true),
      publicVariable('CI_REGISTRY', server.registry),
      publicVariable('CI_REGISTRY_IMAGE', `${server.registry}/${git.projectPath}`.toLowerCase()),
    );
  }
  variables.push(
    secretVariable('CI_REPOSITORY_URL', git.repoUrl, false),
    ...pub('CI_JOB_NAME', job.name),
    ...pub('CI_JOB_NAME_SLUG', refSlug(job.name)),
    ...pub('CI_JOB_STAGE', job.stage),
    ...pub('CI_NODE_TOTAL', job.parallel?.total ?? 1),
    ...pub('CI_NODE_INDEX', job.parallel?.index),
    ...pub('CI_BUILD_NAME', job.name),
    ...pub('CI_BUILD_STAGE', job.stage),
    ...pub('CI', 'true'),
    ...pub('GITLAB_CI', 'true'),
    ...serverVariables(server).map(([key, value]) => publicVariable(key, value)),
    ...pub('GITLAB_FEATURES', ''),
    ...pub('CI_PROJECT_ID', ids.projectId),
    ...pub('CI_PROJECT_NAME', projectName(git.projectPath)),
    ...pub('CI_PROJECT_TITLE', pipeline.projectTitle ?? projectName(git.projectPath)),
    ...pub('CI_PROJECT_PATH', git.projectPath),
    ...pub('CI_PROJECT_PATH_SLUG', refSlug(git.projectPath)),
    ...pub('CI_PROJECT_NAMESPACE', projectNamespace(git.projectPath)),
    ...pub('CI_PROJECT_ROOT_NAMESPACE', git.projectPath.split('/')[0]),
    ...pub('CI_PROJECT_URL', projectUrl),
    ...pub('CI_PROJECT_VISIBILITY', pipeline.projectVisibility ?? 'private'),
    ...pub('CI_DEFAULT_BRANCH', pipeline.defaultBranch),
    ...pub('CI_CONFIG_PATH', pipeline.configPath ?? '.gitlab-ci.yml'),
    ...pub('CI_API_V4_URL', `${base}/api/v4`),
    ...pub('CI_PIPELINE_IID', ids.pipelineIid),
    ...pub('CI_PIPELINE_SOURCE', pipeline.source ?? 'push'),
    ...pub('CI_PIPELINE_CREATED_AT', pipeline.createdAt),
    ...pub('CI_PIPELINE_NAME', pipeline.name),
    ...pub('CI_COMMIT_SHA', git.sha),
    ...pub('CI_COMMIT_SHORT_SHA', git.sha.slice(0, 8)),
    ...pub('CI_COMMIT_BEFORE_SHA', git.beforeSha ?? ZERO_SHA),
    ...pub('CI_COMMIT_REF_NAME', refName),
    ...pub('CI_COMMIT_REF_SLUG', refSlug(refName)),
    ...pub(git.refType === 'tag' ? 'CI_COMMIT_TAG' : 'CI_COMMIT_BRANCH', pipeline.mergeRequest ? undefined : git.ref),
    ...pub('CI_COMMIT_MESSAGE', message),
    ...pub('CI_COMMIT_TITLE', commitTitle(message)),
    ...pub('CI_COMMIT_DESCRIPTION', commitDescription(message)),
    ...pub('CI_COMMIT_REF_PROTECTED', String(git.refProtected ?? false)),
    ...pub('CI_COMMIT_TIMESTAMP', git.commitTimestamp),
    ...pub('CI_COMMIT_AUTHOR', git.commitAuthor),
    ...pub('CI_BUILD_REF', git.sha),
    ...pub('CI_BUILD_BEFORE_SHA', git.beforeSha ?? ZERO_SHA),
    ...pub('CI_BUILD_REF_NAME', refName),
    ...pub('CI_BUILD_REF_SLUG', refSlug(refName)),
    ...pub('CI_BUILD_TAG', git.refType === 'tag' ? git.ref : undefined),
    ...pub('CI_PIPELINE_TRIGGERED', pipeline.source === 'trigger' ? 'true' : undefined),
    ...pub('CI_JOB_MANUAL', job.when === 'manual' || job.when === 'delayed' ? 'true' : undefined),
    ...(pipeline.mergeRequest ? mergeRequestVariables(pipeline.mergeRequest).map((variable) => publicVariable(variable.key, variable.value)) : []),
    ...openMergeRequestsVariable(pipeline.openMergeRequests).map((variable) => publicVariable(variable.key, variable.value)),
  );
  return variables;
}

export function userIdentityVariables(pipeline: PayloadPipelineInfo): JobVariable[] {
  const user = pipeline.user;
  if (!user) return [];
  return [
    publicVariable('GITLAB_USER_ID', String(user.id)),
    publicVariable('GITLAB_USER_EMAIL', user.email),
    publicVariable('GITLAB_USER_LOGIN', user.login),
    publicVariable('GITLAB_USER_NAME', user.name),
  ];
}
