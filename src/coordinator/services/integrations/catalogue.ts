import type { IntegrationEventFlag } from '../../../storage/types-integrations.ts';

/** How PUT reads a setting: text, a grape boolean, an integer. */
export type FieldKind = 'string' | 'boolean' | 'integer';

export interface IntegrationField {
  name: string;
  kind: FieldKind;
  required?: boolean;
  /** Never shown in answers, never logged (GitLab's password-type fields). */
  secret?: boolean;
  /** The value of a field not given (`tracker_issue_transition_id` 2). */
  default?: string | boolean | number;
}

export interface IntegrationDefinition {
  /** The spec's neutral slug: the canonical path segment and the stored key. */
  slug: string;
  title: string;
  /** GitLab's slug for the same integration: the alias path segment GitLab clients use. */
  gitlabSlug: string;
  /** GitLab's name of a field where the spec renamed it (neutral → GitLab), e.g. `ci_server_url` → `bamboo_url`. */
  gitlabFieldNames?: Readonly<Record<string, string>>;
  fields: readonly IntegrationField[];
}

const secret = (name: string, required = true): IntegrationField => ({ name, kind: 'string', required, secret: true });
const required = (name: string): IntegrationField => ({ name, kind: 'string', required: true });
const optional = (name: string, kind: FieldKind = 'string'): IntegrationField => ({ name, kind });
const issueTrackerFields = [required('new_issue_url'), required('issues_url'), required('project_url'), optional('description'), optional('title')];

/**
 * The 20 integrations of spec 03, with their PUT parameters, and GitLab's slug for each: the
 * mapping follows each one's parameters (asana: api_key, restrict_to_branch; assembla: token,
 * subdomain; …); where two have the same parameters, GitLab's documentation order decides.
 */
export const INTEGRATIONS: readonly IntegrationDefinition[] = [
  { slug: 'task-comments', title: 'Task comments', gitlabSlug: 'asana', fields: [secret('api_key'), optional('restrict_to_branch')] },
  { slug: 'project-mgmt-a', title: 'Project management A', gitlabSlug: 'assembla', fields: [secret('token'), optional('subdomain')] },
  {
    slug: 'ci-server-a',
    title: 'CI server A',
    gitlabSlug: 'bamboo',
    gitlabFieldNames: { ci_server_url: 'bamboo_url' },
    fields: [required('ci_server_url'), required('build_key'), required('username'), secret('password')],
  },
  { slug: 'issue-tracker-a', title: 'Issue tracker A', gitlabSlug: 'bugzilla', fields: issueTrackerFields },
  { slug: 'ci-hosted-a', title: 'Hosted CI A', gitlabSlug: 'buildkite', fields: [secret('token'), required('project_url'), optional('enable_ssl_verification', 'boolean')] },
  { slug: 'chat-a', title: 'Chat A', gitlabSlug: 'campfire', fields: [secret('token'), optional('subdomain'), optional('room')] },
  { slug: 'custom-issue-tracker', title: 'Custom issue tracker', gitlabSlug: 'custom-issue-tracker', fields: issueTrackerFields },
  {
    slug: 'ci-container',
    title: 'Container CI',
    gitlabSlug: 'drone-ci',
    gitlabFieldNames: { ci_url: 'drone_url' },
    fields: [secret('token'), required('ci_url'), optional('enable_ssl_verification', 'boolean')],
  },
  {
    slug: 'emails-on-push',
    title: 'Emails on push',
    gitlabSlug: 'emails-on-push',
    fields: [required('recipients'), optional('disable_diffs', 'boolean'), optional('send_from_committer_email', 'boolean')],
  },
  { slug: 'external-wiki', title: 'External wiki', gitlabSlug: 'external-wiki', fields: [required('external_wiki_url')] },
  { slug: 'chat-b', title: 'Chat B', gitlabSlug: 'flowdock', fields: [secret('token')] },
  { slug: 'dependency-monitor', title: 'Dependency monitor', gitlabSlug: 'gemnasium', fields: [secret('api_key'), secret('token')] },
  {
    slug: 'chat-c',
    title: 'Chat C',
    gitlabSlug: 'hipchat',
    fields: [secret('token'), optional('color'), optional('notify', 'boolean'), optional('room'), optional('api_version'), optional('server')],
  },
  {
    slug: 'irc-gateway',
    title: 'IRC gateway',
    gitlabSlug: 'irker',
    fields: [required('recipients'), optional('default_irc_uri'), optional('server_host'), optional('server_port', 'integer'), optional('colorize_messages', 'boolean')],
  },
  {
    slug: 'issue-tracker-b',
    title: 'Issue tracker B',
    gitlabSlug: 'jira',
    gitlabFieldNames: { tracker_issue_transition_id: 'jira_issue_transition_id' },
    fields: [required('url'), required('project_key'), required('username'), secret('password'), { name: 'tracker_issue_transition_id', kind: 'integer', default: 2 }],
  },
  { slug: 'cluster-deploy', title: 'Cluster deploy', gitlabSlug: 'kubernetes', fields: [required('namespace'), required('api_url'), secret('token'), optional('ca_pem')] },
  { slug: 'slash-commands-a', title: 'Slash commands A', gitlabSlug: 'slack-slash-commands', fields: [secret('token')] },
  { slug: 'slash-commands-b', title: 'Slash commands B', gitlabSlug: 'mattermost-slash-commands', fields: [secret('token'), optional('username')] },
  { slug: 'package-registry', title: 'Package registry', gitlabSlug: 'packagist', fields: [required('username'), secret('token'), optional('server')] },
  {
    slug: 'pipelines-email',
    title: 'Pipelines emails',
    gitlabSlug: 'pipelines-email',
    fields: [required('recipients'), optional('add_pusher', 'boolean'), optional('notify_only_broken_pipelines', 'boolean')],
  },
];

/** Event flags a new integration starts with (GitLab's column defaults). */
export const DEFAULT_EVENTS: Readonly<Record<IntegrationEventFlag, boolean>> = {
  commit_events: true,
  push_events: true,
  issues_events: true,
  alert_events: true,
  confidential_issues_events: true,
  merge_requests_events: true,
  tag_push_events: true,
  deployment_events: false,
  note_events: true,
  confidential_note_events: true,
  pipeline_events: true,
  wiki_page_events: true,
  job_events: false,
  comment_on_event_enabled: true,
  vulnerability_events: false,
};

const BY_SLUG = new Map(INTEGRATIONS.map((definition) => [definition.slug, definition]));
const BY_GITLAB_SLUG = new Map(INTEGRATIONS.map((definition) => [definition.gitlabSlug, definition]));

/** An integration named by a path segment: the neutral slug first, then GitLab's; `alias` when GitLab's name matched (and differs). */
export function integrationNamed(segment: string): { definition: IntegrationDefinition; alias: boolean } | undefined {
  const neutral = BY_SLUG.get(segment);
  if (neutral) return { definition: neutral, alias: false };
  const gitlab = BY_GITLAB_SLUG.get(segment);
  return gitlab ? { definition: gitlab, alias: true } : undefined;
}

export function integrationBySlug(slug: string): IntegrationDefinition | undefined {
  return BY_SLUG.get(slug);
}

/** Every PUT parameter name any integration reads, GitLab's renamed ones included (the route's body schema). */
export function allFieldNames(): Map<string, FieldKind> {
  const names = new Map<string, FieldKind>();
  for (const definition of INTEGRATIONS) {
    for (const field of definition.fields) {
      names.set(field.name, field.kind);
      const gitlabName = definition.gitlabFieldNames?.[field.name];
      if (gitlabName) names.set(gitlabName, field.kind);
    }
  }
  return names;
}
