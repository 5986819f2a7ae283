/**
 * Variables known when the pipeline is created: predefined pipeline-level ones (the user's
 * are chosen by user-variables.ts). `rules:if`, `only:variables` and the job payload all
 * read them.
 */
import type { CompileContext, ServerIdentity, YamlVariable } from './model.ts';
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

/** `CI_SERVER_*` of a coordinator, in GitLab's order. */
export function serverVariables(server: ServerIdentity): Array<[string, string]> {
  const serverUrl = new URL(server.url);
  const [major = '0', minor = '0', patch = '0'] = server.version.split(/[.-]/);
  return [
    ['CI_SERVER_URL', serverBase(server)],
    ['CI_SERVER_HOST', serverUrl.hostname],
    // GitLab 16.10: the host with the port when it is not the protocol's (components' addresses start with it).
    ['CI_SERVER_FQDN', serverUrl.host],
    ['CI_SERVER_PORT', serverUrl.port || (serverUrl.protocol === 'https:' ? '443' : '80')],
    ['CI_SERVER_PROTOCOL', serverUrl.protocol.replace(':', '')],
    ['CI_SERVER_NAME', server.name ?? 'GitLab'],
    ['CI_SERVER_VERSION', server.version],
    ['CI_SERVER_VERSION_MAJOR', major],
    ['CI_SERVER_VERSION_MINOR', minor],
    ['CI_SERVER_VERSION_PATCH', patch],
    ['CI_SERVER_REVISION', server.revision],
  ];
}

export function serverBase(server: Pick<ServerIdentity, 'url'>): string {
  return server.url.replace(/\/+$/, '');
}

export interface PipelineVariableInputs {
  projectId: number;
  projectPath: string;
  projectTitle?: string;
  projectVisibility?: string;
  /** Absent where the compiler runs without a coordinator (lint of a file alone): no `CI_SERVER_*` then. */
  server?: ServerIdentity;
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
  /** CI_OPEN_MERGE_REQUESTS (model.ts's CompileContext says which). */
  openMergeRequests?: readonly string[];
}

export function inputsFromContext(context: CompileContext): PipelineVariableInputs {
  return {
    projectId: context.project.id,
    projectPath: context.project.path,
    projectTitle: context.project.title,
    projectVisibility: context.project.visibility,
    server: context.server,
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
    openMergeRequests: context.openMergeRequests,
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
    ['CI_PROJECT_ROOT_NAMESPACE', inputs.projectPath.split('/')[0]],
    ['CI_PROJECT_TITLE', inputs.projectTitle ?? projectName(inputs.projectPath)],
    ['CI_PROJECT_VISIBILITY', inputs.projectVisibility ?? 'private'],
    ...(inputs.server ? serverProjectVariables(inputs.server, inputs.projectPath) : []),
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
  return [...predefined, ...(inputs.mergeRequest ? mergeRequestVariables(inputs.mergeRequest) : []), ...openMergeRequestsVariable(inputs.openMergeRequests)];
}

/** CI_OPEN_MERGE_REQUESTS, after the merge request's own variables as GitLab lists it; none when there is no open request. */
export function openMergeRequestsVariable(references: readonly string[] | undefined): { key: string; value: string }[] {
  return references && references.length > 0 ? [{ key: 'CI_OPEN_MERGE_REQUESTS', value: references.join(',') }] : [];
}

function serverProjectVariables(server: ServerIdentity, projectPath: string): Array<[string, string]> {
  const base = serverBase(server);
  return [...serverVariables(server), ['CI_PROJECT_URL', `${base}/${projectPath}`], ['CI_API_V4_URL', `${base}/api/v4`]];
}

/** A lookup over several lists; later lists win. */
export function variableLookup(...lists: readonly (readonly { key: string; value: string }[])[]): (name: string) => string | undefined {
  const map = new Map<string, string>();
  for (const list of lists) for (const variable of list) map.set(variable.key, variable.value);
  return (name) => map.get(name);
}
