import { DEFAULT_JOB_TIMEOUT_SECONDS } from '../../../../ci/job-timeout.ts';
import type { CustomAttributeRecord, NamespaceRecord, ProjectRecord } from '../../../../storage/types.ts';
import type { ProjectGroupLinkRecord } from '../../../../storage/types-projects.ts';
import type { ProjectStatistics, ProjectSummaryView, ProjectView } from '../../../services/namespaces/project-views.ts';
import { serializeNamespace } from './namespaces.ts';
import { avatarUrl } from '../avatar-url.ts';

type Json = Record<string, unknown>;

const featureLevel = (enabled: boolean): string => (enabled ? 'enabled' : 'disabled');

/** GitLab's Project entity (or BasicProjectDetails with `simple=true`) for one project view. */
export function serializeProject(view: ProjectView, externalUrl: string): Json {
  const json = view.detail === 'simple' ? serializeProjectSummary(view, externalUrl) : serializeProjectDetails(view, externalUrl);
  if (view.statistics) json.statistics = serializeStatistics(view.statistics);
  if (view.customAttributes) json.custom_attributes = view.customAttributes.map(serializeCustomAttribute);
  return json;
}

export function serializeCustomAttribute(attribute: CustomAttributeRecord): CustomAttributeRecord {
  return { key: attribute.key, value: attribute.value };
}

/** `POST /projects/:id/share`: the link without its creation time. */
export function serializeProjectGroupLink(link: ProjectGroupLinkRecord): Omit<ProjectGroupLinkRecord, 'created_at'> {
  return { id: link.id, project_id: link.project_id, group_id: link.group_id, group_access: link.group_access, expires_at: link.expires_at };
}

const hostnames = new Map<string, string>();

/** The host name of the external URL, parsed once per URL (every project answer names it). */
function hostnameOf(externalUrl: string): string {
  let hostname = hostnames.get(externalUrl);
  if (hostname === undefined) {
    hostname = new URL(externalUrl).hostname;
    hostnames.set(externalUrl, hostname);
  }
  return hostname;
}

/** A project's id and names, as every answer that embeds a project starts (GitLab's ProjectIdentity but `created_at`). */
export function serializeProjectNames({ project, namespace }: { project: ProjectRecord; namespace: NamespaceRecord }) {
  return {
    id: project.id,
    description: project.description,
    name: project.name,
    name_with_namespace: `${namespace.full_name} / ${project.name}`,
    path: project.path,
    path_with_namespace: `${namespace.full_path}/${project.path}`,
  };
}

/** By assignment onto the names, not a spread: a spread copy turns the detailed answer's object slow (list p50 8 → 20 ms). */
function serializeProjectSummary(view: ProjectSummaryView, externalUrl: string): Json {
  const { project, namespace } = view;
  const fullPath = `${namespace.full_path}/${project.path}`;
  const json: Json = serializeProjectNames(view);
  json.created_at = project.created_at;
  json.default_branch = project.default_branch;
  json.tag_list = project.tag_list;
  json.ssh_url_to_repo = `git@${hostnameOf(externalUrl)}:${fullPath}.git`;
  json.http_url_to_repo = `${externalUrl}/${fullPath}.git`;
  json.web_url = `${externalUrl}/${fullPath}`;
  json.readme_url = project.default_branch === null ? null : `${externalUrl}/${fullPath}/-/blob/${project.default_branch}/README.md`;
  json.avatar_url = avatarUrl(project.avatar_url, externalUrl);
  json.forks_count = view.forks;
  json.star_count = view.stars;
  json.last_activity_at = project.last_activity_at;
  json.namespace = serializeNamespace(namespace, externalUrl);
  return json;
}

/** Built by assignment in GitLab's field order (no spreads: one object, no copies). */
function serializeProjectDetails(view: ProjectView, externalUrl: string): Json {
  const { project, owner } = view;
  const self = `${externalUrl}/api/v4/projects/${project.id}`;
  const json = serializeProjectSummary(view, externalUrl);
  json._links = {
    self,
    issues: `${self}/issues`,
    merge_requests: `${self}/merge_requests`,
    repo_branches: `${self}/repository/branches`,
    labels: `${self}/labels`,
    events: `${self}/events`,
    members: `${self}/members`,
  };
  json.empty_repo = project.default_branch === null;
  json.archived = project.archived;
  json.visibility = project.visibility;
  if (owner) json.owner = { id: owner.id, name: owner.name, username: owner.username, state: owner.state, avatar_url: avatarUrl(owner.avatar_url, externalUrl), web_url: `${externalUrl}/${owner.username}`, created_at: owner.created_at };
  json.resolve_outdated_diff_discussions = project.resolve_outdated_diff_discussions;
  json.container_registry_enabled = project.container_registry_enabled;
  json.issues_enabled = project.issues_enabled;
  json.merge_requests_enabled = project.merge_requests_enabled;
  json.wiki_enabled = project.wiki_enabled;
  json.jobs_enabled = project.jobs_enabled;
  json.snippets_enabled = project.snippets_enabled;
  json.issues_access_level = featureLevel(project.issues_enabled);
  json.repository_access_level = 'enabled';
  json.merge_requests_access_level = featureLevel(project.merge_requests_enabled);
  json.wiki_access_level = featureLevel(project.wiki_enabled);
  json.builds_access_level = featureLevel(project.jobs_enabled);
  json.snippets_access_level = featureLevel(project.snippets_enabled);
  json.shared_runners_enabled = project.shared_runners_enabled;
  json.lfs_enabled = project.lfs_enabled;
  json.creator_id = project.creator_id;
  if (view.forkedFrom) json.forked_from_project = serializeProjectSummary(view.forkedFrom, externalUrl);
  json.import_status = project.import_status;
  json.import_error = project.import_error;
  json.open_issues_count = 0;
  json.ci_default_git_depth = 50;
  json.ci_forward_deployment_enabled = project.ci_forward_deployment_enabled;
  json.ci_forward_deployment_rollback_allowed = project.ci_forward_deployment_rollback_allowed;
  json.public_jobs = project.public_jobs;
  json.build_timeout = DEFAULT_JOB_TIMEOUT_SECONDS;
  json.ci_config_path = project.ci_config_path;
  json.shared_with_groups = view.sharedWithGroups.map(({ group, access }) => ({ group_id: group.id, group_name: group.name, group_full_path: group.full_path, group_access_level: access }));
  json.only_allow_merge_if_pipeline_succeeds = project.only_allow_merge_if_pipeline_succeeds;
  json.request_access_enabled = project.request_access_enabled;
  json.only_allow_merge_if_all_discussions_are_resolved = project.only_allow_merge_if_all_discussions_are_resolved;
  json.printing_merge_requests_link_enabled = project.printing_merge_requests_link_enabled;
  json.merge_method = project.merge_method;
  json.squash_option = project.squash_option;
  json.remove_source_branch_after_merge = project.remove_source_branch_after_merge;
  if (view.callerAccess) {
    const { project: member, groupLevel } = view.callerAccess;
    // On GitLab the owner of a personal namespace holds its projects as a project member: no group is involved.
    const personal = view.namespace.kind === 'user';
    const ownLevel = personal && groupLevel !== undefined ? { access_level: groupLevel, notification_level: 3 } : null;
    json.permissions = {
      project_access: member ? { access_level: member.access_level, notification_level: member.notification_level } : ownLevel,
      group_access: personal || groupLevel === undefined ? null : { access_level: groupLevel, notification_level: 3 },
    };
  }
  if (view.showsRunnersToken) json.runners_token = project.runners_token;
  return json;
}

function serializeStatistics(statistics: ProjectStatistics): Json {
  return {
    commit_count: statistics.commitCount,
    storage_size: statistics.repositorySize,
    repository_size: statistics.repositorySize,
    wiki_size: 0,
    lfs_objects_size: 0,
    job_artifacts_size: 0,
    packages_size: 0,
    snippets_size: 0,
  };
}
