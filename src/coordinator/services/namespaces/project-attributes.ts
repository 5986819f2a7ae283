import { validationFailed } from '../../../shared/errors.ts';
import type { MergeMethod, ProjectChanges, SquashOption, Visibility } from '../../../storage/types.ts';
import { checkLengths, exceedsLength, tooLongMessage, type FieldLimits } from '../field-limits.ts';

/** GitLab's Project validations (app/models/project.rb); a topic (Projects::Topic name) is 255 too. */
export const PROJECT_LIMITS = { name: 255, path: 255, description: 2000, ci_config_path: 255, topics: 255 } as const satisfies FieldLimits;

const PATH_FORMAT = /^[a-zA-Z0-9_][a-zA-Z0-9_.-]*$/;
const NAME_FORMAT = /^[\p{L}\p{N}_][\p{L}\p{N}\p{Emoji_Presentation}_. +-]*$/u;
const RESERVED_PATHS = new Set(['-', 'api', 'assets', 'help', 'uploads', 'badges', 'blob', 'tree', 'raw', 'new', 'edit', 'create']);

export const PATH_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'";
export const NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.";

/**
 * The path GitLab derives from a name given alone: a name that is already a valid path, lowercased;
 * any other goes through Rails' `parameterize` (accents dropped, each run of other characters,
 * dots included, one dash, repeated dashes squeezed), so `Tool - v1.2` gives `tool-v1-2`.
 */
export function pathFromName(name: string): string {
  const trimmed = name.trim();
  if (PATH_FORMAT.test(trimmed)) return trimmed.replace(/[-.]+$/, '').toLowerCase();
  return trimmed
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
}

export function nameAndPathErrors(name: string | undefined, path: string | undefined): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (name !== undefined && exceedsLength(name, PROJECT_LIMITS.name)) errors.name = [tooLongMessage(PROJECT_LIMITS.name)];
  else if (name !== undefined && !NAME_FORMAT.test(name)) errors.name = [NAME_MESSAGE];
  if (path !== undefined) {
    if (path.length === 0) errors.path = ["can't be blank"];
    else if (exceedsLength(path, PROJECT_LIMITS.path)) errors.path = [tooLongMessage(PROJECT_LIMITS.path)];
    else if (!PATH_FORMAT.test(path) || path.endsWith('.git') || path.endsWith('.atom')) errors.path = [PATH_MESSAGE];
    else if (RESERVED_PATHS.has(path.toLowerCase())) errors.path = [`${path} is a reserved name`];
  }
  return errors;
}

/**
 * The parameters `PUT /projects/:id` reads, in the order of GitLab's
 * `update_params_at_least_one_of`: an edit naming none of them answers 400.
 */
export const PROJECT_UPDATE_PARAMETERS: readonly string[] = [
  'builds_access_level', 'ci_config_path', 'ci_forward_deployment_enabled', 'ci_forward_deployment_rollback_allowed', 'container_registry_enabled', 'default_branch', 'description', 'issues_access_level',
  'lfs_enabled', 'merge_method', 'merge_requests_access_level', 'name', 'only_allow_merge_if_all_discussions_are_resolved',
  'only_allow_merge_if_pipeline_succeeds', 'path', 'printing_merge_requests_link_enabled', 'public_builds', 'public_jobs',
  'remove_source_branch_after_merge', 'request_access_enabled', 'resolve_outdated_diff_discussions', 'shared_runners_enabled',
  'snippets_access_level', 'squash_option', 'tag_list',
  'topics', 'visibility', 'wiki_access_level', 'issues_enabled', 'jobs_enabled', 'merge_requests_enabled', 'wiki_enabled',
  'snippets_enabled',
];

const FEATURES = [
  ['issues_enabled', 'issues_access_level'],
  ['merge_requests_enabled', 'merge_requests_access_level'],
  ['wiki_enabled', 'wiki_access_level'],
  ['jobs_enabled', 'builds_access_level'],
  ['snippets_enabled', 'snippets_access_level'],
] as const;

const FLAGS = [
  'container_registry_enabled',
  'resolve_outdated_diff_discussions',
  'shared_runners_enabled',
  'public_jobs',
  'request_access_enabled',
  'only_allow_merge_if_pipeline_succeeds',
  'only_allow_merge_if_all_discussions_are_resolved',
  'printing_merge_requests_link_enabled',
  'lfs_enabled',
  'remove_source_branch_after_merge',
  'ci_forward_deployment_enabled',
  'ci_forward_deployment_rollback_allowed',
] as const;

export type FeatureAccessLevel = 'disabled' | 'private' | 'enabled';

/** The settings a create or edit request may carry besides name, path and namespace (GitLab's names). */
export interface ProjectAttributesInput {
  description?: string;
  visibility?: Visibility;
  ci_config_path?: string;
  issues_enabled?: boolean;
  issues_access_level?: FeatureAccessLevel;
  merge_requests_enabled?: boolean;
  merge_requests_access_level?: FeatureAccessLevel;
  wiki_enabled?: boolean;
  wiki_access_level?: FeatureAccessLevel;
  jobs_enabled?: boolean;
  builds_access_level?: FeatureAccessLevel;
  snippets_enabled?: boolean;
  snippets_access_level?: FeatureAccessLevel;
  container_registry_enabled?: boolean;
  resolve_outdated_diff_discussions?: boolean;
  shared_runners_enabled?: boolean;
  public_jobs?: boolean;
  public_builds?: boolean;
  request_access_enabled?: boolean;
  only_allow_merge_if_pipeline_succeeds?: boolean;
  only_allow_merge_if_all_discussions_are_resolved?: boolean;
  printing_merge_requests_link_enabled?: boolean;
  lfs_enabled?: boolean;
  merge_method?: MergeMethod;
  squash_option?: SquashOption;
  remove_source_branch_after_merge?: boolean;
  ci_forward_deployment_enabled?: boolean;
  ci_forward_deployment_rollback_allowed?: boolean;
  tag_list?: string[];
  topics?: string[];
}

/**
 * The changes a create or edit request asks for; only those present are returned. Feature
 * flags come as booleans or as GitLab's `*_access_level` (disabled, private, enabled).
 */
export function projectChanges(input: ProjectAttributesInput): ProjectChanges & { visibility?: Visibility } {
  const changes: ProjectChanges = {};
  const { description, ci_config_path: ciConfigPath } = input;
  checkLengths(PROJECT_LIMITS, { description, ci_config_path: ciConfigPath });
  if (description !== undefined) changes.description = description;
  if (input.visibility !== undefined) changes.visibility = input.visibility;
  for (const [flag, level] of FEATURES) {
    const enabled = input[flag];
    const access = input[level];
    if (access !== undefined) changes[flag] = access !== 'disabled';
    else if (enabled !== undefined) changes[flag] = enabled;
  }
  for (const flag of FLAGS) {
    const value = input[flag];
    if (value !== undefined) changes[flag] = value;
  }
  if (input.merge_method !== undefined) changes.merge_method = input.merge_method;
  if (input.squash_option !== undefined) changes.squash_option = input.squash_option;
  if (input.public_builds !== undefined && changes.public_jobs === undefined) changes.public_jobs = input.public_builds;
  const tags = input.tag_list ?? input.topics;
  if (tags !== undefined) {
    changes.tag_list = [...new Set(tags.map((tag) => tag.trim()).filter((tag) => tag !== ''))];
    for (const topic of changes.tag_list) checkLengths(PROJECT_LIMITS, { topics: topic });
  }
  if (ciConfigPath !== undefined) {
    if (ciConfigPath.split('/').includes('..')) throw validationFailed({ ci_config_path: ['cannot include directory traversal'] });
    changes.ci_config_path = ciConfigPath === '' ? null : ciConfigPath;
  }
  return changes;
}
