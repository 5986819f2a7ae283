/**
 * Variables known when the pipeline is created: predefined pipeline-level ones (the user's
 * are chosen by user-variables.ts). `rules:if`, `only:variables` and the job payload all
 * read them.
 */
import type { CompileContext, YamlVariable } from './model.ts';
import { mergeRequestVariables, type MergeRequestInfo } from './merge-request-variables.ts';
import { refSlug } from './slug.ts';

export const ZERO_SHA = '0000000000000000000000000000000000000000';

/** What a job adds for its own `rules` and `only:variables`, before the pipeline's (GitLab's `predefined_variables_from_job_attr`). */
export interface JobAttributes {
  name: string;
  stage: string;
  /** The job's own `when`, before its rules. */
  when: string | null;
  parallel: { index: number; total: number } | null;
}

export function jobAttributeVariables(job: JobAttributes): YamlVariable[] {
  const variables: YamlVariable[] = [
    { key: 'CI_JOB_NAME', value: job.name },
    { key: 'CI_JOB_NAME_SLUG', value: refSlug(job.name) },
    { key: 'CI_JOB_STAGE', value: job.stage },
  ];
  if (job.when === 'manual' || job.when === 'delayed') variables.push({ key: 'CI_JOB_MANUAL', value: 'true' });
  if (job.parallel) variables.push({ key: 'CI_NODE_INDEX', value: String(job.parallel.index) });
  variables.push({ key: 'CI_NODE_TOTAL', value: String(job.parallel?.total ?? 1) });
  return variables;
}

export function projectName(path: string): string {
  return path.split('/').pop() ?? path;
}

export function projectNamespace(path: string): string {
  return path.split('/').slice(0, -1).join('/');
}

/** Title and description of a commit message, as GitLab splits them. */
export function commitTitle(message: string): string {
  return message.split('\n')[0] ?? '';
}

export function commitDescription(message: string): string {
  const lines = message.split('\n');
  return lines.length > 1 ? lines.slice(1).join('\n').replace(/^\n+/, '') : '';
}

export interface PipelineVariableInputs {
  projectId: number;
  projectPath: string;
  defaultBranch?: string;
  ref: string;
  refType: 'branch' | 'tag';
  refProtected: boolean;
  sha: string;
  beforeSha?: string;
  commitMessage?: string;
  source: string;
  configPath: string;
  mergeRequest?: MergeRequestInfo;
}

export function inputsFromContext(context: CompileContext): PipelineVariableInputs {
  return {
    projectId: context.project.id,
    projectPath: context.project.path,
    defaultBranch: context.project.defaultBranch,
    ref: context.ref,
    refType: context.refType,
    refProtected: context.refProtected ?? false,
    sha: context.sha,
    beforeSha: context.beforeSha,
    commitMessage: context.commitMessage,
    source: context.source,
    configPath: context.configPath ?? '.gitlab-ci.yml',
    mergeRequest: context.mergeRequest,
  };
}

/** Predefined variables available to rules (VARDOC "pre-pipeline" and "pipeline"). */
export function predefinedPipelineVariables(inputs: PipelineVariableInputs): YamlVariable[] {
  const message = inputs.commitMessage ?? '';
  const list: [string, string | undefined][] = [
    ['CI', 'true'],
    ['GITLAB_CI', 'true'],
    ['CI_PROJECT_ID', String(inputs.projectId)],
    ['CI_PROJECT_NAME', projectName(inputs.projectPath)],
    ['CI_PROJECT_PATH', inputs.projectPath],
    ['CI_PROJECT_PATH_SLUG', refSlug(inputs.projectPath)],
    ['CI_PROJECT_NAMESPACE', projectNamespace(inputs.projectPath)],
    ['CI_DEFAULT_BRANCH', inputs.defaultBranch],
    ['CI_CONFIG_PATH', inputs.configPath],
    ['CI_PIPELINE_SOURCE', inputs.source],
    ['CI_COMMIT_SHA', inputs.sha],
    ['CI_COMMIT_SHORT_SHA', inputs.sha.slice(0, 8)],
    ['CI_COMMIT_BEFORE_SHA', inputs.beforeSha ?? ZERO_SHA],
    ['CI_COMMIT_REF_NAME', inputs.ref],
    ['CI_COMMIT_REF_SLUG', refSlug(inputs.ref)],
    ['CI_COMMIT_BRANCH', inputs.refType === 'branch' && !inputs.mergeRequest ? inputs.ref : undefined],
    ['CI_COMMIT_TAG', inputs.refType === 'tag' ? inputs.ref : undefined],
    ['CI_COMMIT_MESSAGE', message],
    ['CI_COMMIT_TITLE', commitTitle(message)],
    ['CI_COMMIT_DESCRIPTION', commitDescription(message)],
    ['CI_COMMIT_REF_PROTECTED', String(inputs.refProtected)],
  ];
  const predefined = list.flatMap(([key, value]) => (value === undefined ? [] : [{ key, value }]));
  return inputs.mergeRequest ? [...predefined, ...mergeRequestVariables(inputs.mergeRequest)] : predefined;
}

/** A lookup over several lists; later lists win. */
export function variableLookup(...lists: readonly (readonly { key: string; value: string }[])[]): (name: string) => string | undefined {
  const map = new Map<string, string>();
  for (const list of lists) for (const variable of list) map.set(variable.key, variable.value);
  return (name) => map.get(name);
}
