import { Type } from '#deps/typebox';
import { MERGE_METHODS, SQUASH_OPTIONS, VISIBILITIES } from '../../../storage/types.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION } from '../../http/pagination.ts';

/** Route schemas of the projects area (api/projects.ts, api/projects-actions.ts). */

export const PROJECT_ORDER = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at'] as const;
export const ACCESS_LEVEL_VALUES = ['10', '20', '30', '40', '50'] as const;
const FEATURE_LEVELS = ['disabled', 'private', 'enabled'] as const;

export const ProjectId = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }) });
export const UserProjectsPath = Type.Object({ user_id: Param.string({ description: 'User id or username' }) });
export const ShareLinkPath = Type.Object({ id: ProjectId.properties.id, group_id: Param.integer({ minimum: 1, description: 'Group id' }) });

const flag = (description: string) => Type.Optional(Param.boolean({ description }));
const featureLevel = (feature: string) => Type.Optional(Param.oneOf(FEATURE_LEVELS, { description: `Who may use ${feature}` }));

/** GitLab's `topic` filter of project listings: a comma list (or array) of topic names, all of which a project must carry. */
export const TOPIC = Type.Optional(Param.strings({ description: 'Only projects with all of these topics (comma-separated names)' }));

/** The `topic` names as GitLab reads them: trimmed, blanks dropped, each once; undefined when none is left. */
export function topicNames(value: readonly string[] | undefined): string[] | undefined {
  const names = [...new Set((value ?? []).flatMap((item) => item.split(',')).map((name) => name.trim()).filter((name) => name !== ''))];
  return names.length > 0 ? names : undefined;
}

export const ProjectListQuery = Type.Object({
  archived: flag('Only archived (true) or unarchived (false) projects'),
  visibility: Type.Optional(Param.oneOf(VISIBILITIES, { description: 'Only projects of this visibility' })),
  order_by: Type.Optional(Param.oneOf(PROJECT_ORDER, { description: 'Order by this field (default created_at)' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'] as const, { description: 'Sort direction (default desc)' })),
  search: Type.Optional(Param.string({ description: 'Part of the name or path' })),
  search_namespaces: flag('Match the search in the namespace path too'),
  simple: flag('Only the basic fields of each project'),
  owned: flag("Only projects in the caller's personal namespace"),
  membership: flag('Only projects the caller is a member of'),
  starred: flag('Only projects the caller starred'),
  statistics: flag('Include repository statistics'),
  with_custom_attributes: flag('Include custom attributes (administrators)'),
  custom_attributes: Type.Optional(Param.hash({ description: 'Only projects with these custom attributes (administrators)' })),
  min_access_level: Type.Optional(Param.oneOf(ACCESS_LEVEL_VALUES, { description: 'Only projects where the caller has at least this level' })),
  last_activity_after: Type.Optional(Param.dateTime({ description: 'Only projects active after this time' })),
  last_activity_before: Type.Optional(Param.dateTime({ description: 'Only projects active before this time' })),
  id_after: Type.Optional(Param.integer({ description: 'Only projects with a larger id' })),
  id_before: Type.Optional(Param.integer({ description: 'Only projects with a smaller id' })),
  with_issues_enabled: flag('Only projects with issues enabled'),
  with_merge_requests_enabled: flag('Only projects with merge requests enabled'),
  topic: TOPIC,
  ...PAGINATION,
});

export const ProjectGetQuery = Type.Object({
  statistics: flag('Include repository statistics (Reporter and up)'),
  with_custom_attributes: flag('Include custom attributes (administrators)'),
});

/** The settings `POST /projects` and `PUT /projects/:id` accept besides name, path and namespace. */
const PROJECT_ATTRIBUTES = {
  description: Type.Optional(Param.string({ description: 'Description' })),
  visibility: Type.Optional(Param.oneOf(VISIBILITIES, { description: 'Visibility level' })),
  ci_config_path: Type.Optional(Param.string({ description: 'Path of the CI configuration file' })),
  issues_enabled: flag('Enable issues (deprecated: issues_access_level)'),
  issues_access_level: featureLevel('issues'),
  merge_requests_enabled: flag('Enable merge requests (deprecated: merge_requests_access_level)'),
  merge_requests_access_level: featureLevel('merge requests'),
  wiki_enabled: flag('Enable the wiki (deprecated: wiki_access_level)'),
  wiki_access_level: featureLevel('the wiki'),
  jobs_enabled: flag('Enable jobs (deprecated: builds_access_level)'),
  builds_access_level: featureLevel('jobs'),
  snippets_enabled: flag('Enable snippets (deprecated: snippets_access_level)'),
  snippets_access_level: featureLevel('snippets'),
  container_registry_enabled: flag('Enable the container registry'),
  resolve_outdated_diff_discussions: flag('Resolve discussions on outdated diff lines'),
  shared_runners_enabled: flag('Enable shared runners'),
  public_jobs: flag('Jobs are visible to non-members'),
  public_builds: flag('Jobs are visible to non-members (deprecated: public_jobs)'),
  request_access_enabled: flag('Users may request access'),
  only_allow_merge_if_pipeline_succeeds: flag('Merge only after a successful pipeline'),
  only_allow_merge_if_all_discussions_are_resolved: flag('Merge only when every discussion is resolved'),
  printing_merge_requests_link_enabled: flag('Print the merge request link when pushing'),
  lfs_enabled: flag('Enable Git LFS'),
  merge_method: Type.Optional(Param.oneOf(MERGE_METHODS, { description: 'How merge requests are merged: merge, rebase_merge (only when fast-forwardable) or ff' })),
  squash_option: Type.Optional(Param.oneOf(SQUASH_OPTIONS, { description: 'Squash commits when merging: never, always, default_on or default_off' })),
  remove_source_branch_after_merge: flag('Delete the source branch on merge by default'),
  ci_forward_deployment_enabled: flag('Prevent outdated deployment jobs'),
  ci_forward_deployment_rollback_allowed: flag('Allow job retries for rollback deployments'),
  tag_list: Type.Optional(Param.strings({ description: 'Topics (deprecated: topics)' })),
  topics: Type.Optional(Param.strings({ description: 'Topics' })),
};

const NAME_AND_PATH = {
  name: Type.Optional(Param.string({ description: 'Name (path derived from it when absent)' })),
  path: Type.Optional(Param.string({ description: 'Path (name taken from it when absent)' })),
};

export const ProjectCreateBody = Type.Object({
  ...NAME_AND_PATH,
  namespace_id: Type.Optional(Param.string({ description: "Namespace id or full path (default: the creator's personal namespace)" })),
  namespace: Type.Optional(Param.string({ description: 'Namespace id or full path (deprecated: namespace_id)' })),
  initialize_with_readme: flag('Create a first commit with a README'),
  default_branch: Type.Optional(Param.string({ description: 'Default branch (with initialize_with_readme; default main)' })),
  ...PROJECT_ATTRIBUTES,
});

export const ProjectUpdateBody = Type.Object({
  ...NAME_AND_PATH,
  default_branch: Type.Optional(Param.string({ description: 'Default branch (must exist unless the repository is empty)' })),
  ...PROJECT_ATTRIBUTES,
});

export const ProjectForkBody = Type.Object({
  namespace_id: Type.Optional(Param.string({ description: "Target namespace id or full path (default: the caller's personal namespace)" })),
  namespace_path: Type.Optional(Param.string({ description: 'Target namespace full path' })),
  namespace: Type.Optional(Param.string({ description: 'Target namespace id or full path (deprecated)' })),
  name: Type.Optional(Param.string({ description: "The fork's name (default: the source's)" })),
  path: Type.Optional(Param.string({ description: "The fork's path (default: the source's)" })),
  visibility: Type.Optional(Param.oneOf(VISIBILITIES, { description: "The fork's visibility (never more open than its source)" })),
});

export const ProjectTransferBody = Type.Object({ namespace: Param.string({ minLength: 1, description: 'Target namespace id or full path' }) });

export const ProjectShareBody = Type.Object({
  group_id: Param.integer({ minimum: 1, description: 'Group to share with' }),
  group_access: Param.integer({ description: 'Level granted to the group (10, 20, 30 or 40)' }),
  expires_at: Type.Optional(Param.date({ description: 'Share expiry date (YYYY-MM-DD)' })),
});
