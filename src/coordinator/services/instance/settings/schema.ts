import { VISIBILITIES } from '../../../../storage/types.ts';

/**
 * Every application setting an administrator may change with `PUT /application/settings`
 * (spec 03 "Application settings"), as data: its kind, its default, the values it may take
 * and the rules the merged result must satisfy. Parsing, validation, defaults and the
 * response shape are all derived from this one table.
 */
export type SettingKind = 'string' | 'boolean' | 'integer' | 'decimal' | 'string_array';

export type SettingDefault = string | number | boolean | readonly string[] | null;

export interface SettingDefinition {
  readonly name: string;
  readonly kind: SettingKind;
  /** What a fresh instance answers; null marks a setting that may be unset. */
  readonly default: SettingDefault;
  /** The only accepted values (for arrays: of each item); anything else is a 400 "does not have a valid value". */
  readonly values?: readonly (string | number)[];
  /** Must be present (non-blank) whenever this boolean setting is true: 400 "<name> is missing". */
  readonly requiredWhen?: string;
  /** Numeric bounds, checked on the merged result (400 with a field message, as a failed model validation). */
  readonly min?: number;
  readonly max?: number;
  /** min/max themselves are not allowed. */
  readonly exclusive?: boolean;
  /** Must be at least the (merged) value of this other integer setting. */
  readonly atLeastSetting?: string;
  readonly format?: 'url' | 'email' | 'duration';
  /** Arrays that may not be emptied. */
  readonly nonEmpty?: boolean;
  /** The longest string (or array item) accepted, when not MAX_SETTING_STRING_LENGTH. */
  readonly maxLength?: number;
}

/**
 * Every string setting (and each item of an array setting) is at most this long, a free text
 * at most MAX_SETTING_TEXT_LENGTH, and an array holds at most MAX_SETTING_ITEMS items: the
 * stored document is read on every runner registration and every settings change, so its size
 * must not be whatever a request body can hold.
 */
export const MAX_SETTING_STRING_LENGTH = 255;
export const MAX_SETTING_TEXT_LENGTH = 10_000;
export const MAX_SETTING_ITEMS = 1_000;

const RSA_SIZES = [1024, 2048, 3072, 4096];
const DSA_SIZES = [1024, 2048, 3072];
const ECDSA_SIZES = [256, 384, 521];
const ED25519_SIZES = [256];
/** -1 forbids the key type, 0 accepts any size, else the minimum size in bits. */
const keyRestriction = (sizes: number[]): number[] => [-1, 0, ...sizes];

/** Import source kinds GitLab knows; the default enables all of them. */
export const IMPORT_SOURCES = ['github', 'bitbucket', 'bitbucket_server', 'gitlab', 'fogbugz', 'git', 'gitlab_project', 'gitea', 'manifest', 'phabricator'];
/** What import_sources accepts: those, and the retired Google Code kind GitLab 13 still names. */
const IMPORT_SOURCE_VALUES = [...IMPORT_SOURCES, 'google_code'];
/** The storages configured on this instance (one, for now). */
export const REPOSITORY_STORAGES = ['default'];
export const GIT_ACCESS_PROTOCOLS = ['ssh', 'http'] as const;

/** `<name>_enabled` (default false) and the `_requests_per_period` and `_period_in_seconds` it requires (default one hour). */
function throttleSettings<Name extends string>(name: Name, requests: number) {
  return [
    { name: `${name}_enabled`, kind: 'boolean', default: false },
    { name: `${name}_requests_per_period`, kind: 'integer', default: requests, min: 0, exclusive: true, requiredWhen: `${name}_enabled` },
    { name: `${name}_period_in_seconds`, kind: 'integer', default: 3600, min: 0, exclusive: true, requiredWhen: `${name}_enabled` },
  ] as const;
}

export const SETTINGS_SCHEMA = [
  { name: 'admin_notification_email', kind: 'string', default: null, format: 'email' },
  { name: 'after_sign_out_path', kind: 'string', default: null, format: 'url' },
  { name: 'after_sign_up_text', kind: 'string', default: null, maxLength: MAX_SETTING_TEXT_LENGTH },
  // Whether integrations (and webhooks) may request local addresses: services/outbound/.
  { name: 'allow_local_requests_from_web_hooks_and_services', kind: 'boolean', default: false },
  { name: 'allow_local_requests_from_system_hooks', kind: 'boolean', default: true },
  { name: 'spamcheck_api_key', kind: 'string', default: null },
  { name: 'spamcheck_enabled', kind: 'boolean', default: false },
  { name: 'circuitbreaker_access_retries', kind: 'integer', default: 3, min: 0 },
  { name: 'circuitbreaker_check_interval', kind: 'integer', default: 1, min: 0 },
  { name: 'circuitbreaker_failure_count_threshold', kind: 'integer', default: 3, min: 0 },
  { name: 'circuitbreaker_failure_reset_time', kind: 'integer', default: 1800, min: 0 },
  { name: 'circuitbreaker_storage_timeout', kind: 'integer', default: 15, min: 0 },
  { name: 'clientside_errortrack_dsn', kind: 'string', default: null, requiredWhen: 'clientside_errortrack_enabled' },
  { name: 'clientside_errortrack_enabled', kind: 'boolean', default: false },
  { name: 'container_registry_token_expire_delay', kind: 'integer', default: 5, min: 0, exclusive: true },
  { name: 'default_artifacts_expire_in', kind: 'string', default: '30 days', format: 'duration' },
  { name: 'default_branch_protection', kind: 'integer', default: 2, values: [0, 1, 2] },
  { name: 'default_group_visibility', kind: 'string', default: 'private', values: VISIBILITIES },
  { name: 'default_project_visibility', kind: 'string', default: 'private', values: VISIBILITIES },
  { name: 'default_projects_limit', kind: 'integer', default: 100000, min: 0 },
  { name: 'default_snippet_visibility', kind: 'string', default: 'private', values: VISIBILITIES },
  { name: 'disabled_oauth_sign_in_sources', kind: 'string_array', default: [] },
  { name: 'domain_blacklist_enabled', kind: 'boolean', default: false },
  { name: 'domain_blacklist', kind: 'string_array', default: null, requiredWhen: 'domain_blacklist_enabled' },
  { name: 'domain_whitelist', kind: 'string_array', default: null },
  { name: 'dsa_key_restriction', kind: 'integer', default: 0, values: keyRestriction(DSA_SIZES) },
  { name: 'ecdsa_key_restriction', kind: 'integer', default: 0, values: keyRestriction(ECDSA_SIZES) },
  { name: 'ed25519_key_restriction', kind: 'integer', default: 0, values: keyRestriction(ED25519_SIZES) },
  { name: 'rsa_key_restriction', kind: 'integer', default: 0, values: keyRestriction(RSA_SIZES) },
  { name: 'email_author_in_body', kind: 'boolean', default: false },
  // null (also sent as '' or 'nil') allows both protocols.
  { name: 'enabled_git_access_protocol', kind: 'string', default: null, values: GIT_ACCESS_PROTOCOLS },
  { name: 'avatar_service_enabled', kind: 'boolean', default: true },
  { name: 'help_page_hide_commercial_content', kind: 'boolean', default: false },
  { name: 'help_page_support_url', kind: 'string', default: null, format: 'url' },
  { name: 'home_page_url', kind: 'string', default: null, format: 'url' },
  { name: 'housekeeping_bitmaps_enabled', kind: 'boolean', default: true },
  { name: 'housekeeping_enabled', kind: 'boolean', default: true },
  { name: 'housekeeping_full_repack_period', kind: 'integer', default: 50, atLeastSetting: 'housekeeping_incremental_repack_period' },
  { name: 'housekeeping_gc_period', kind: 'integer', default: 200, atLeastSetting: 'housekeeping_full_repack_period' },
  { name: 'housekeeping_incremental_repack_period', kind: 'integer', default: 10, min: 0, exclusive: true },
  { name: 'html_emails_enabled', kind: 'boolean', default: true },
  { name: 'import_sources', kind: 'string_array', default: IMPORT_SOURCES, values: IMPORT_SOURCE_VALUES },
  { name: 'ide_enabled', kind: 'boolean', default: false },
  { name: 'ide_url', kind: 'string', default: null, requiredWhen: 'ide_enabled', format: 'url' },
  { name: 'max_artifacts_size', kind: 'integer', default: 100, min: 0, exclusive: true },
  { name: 'max_attachment_size', kind: 'integer', default: 10, min: 0, exclusive: true },
  { name: 'max_pages_size', kind: 'integer', default: 100, min: 0, max: 1048576 },
  { name: 'metrics_enabled', kind: 'boolean', default: false },
  { name: 'metrics_host', kind: 'string', default: 'localhost', requiredWhen: 'metrics_enabled' },
  { name: 'metrics_method_call_threshold', kind: 'integer', default: 10, min: 0, requiredWhen: 'metrics_enabled' },
  { name: 'metrics_packet_size', kind: 'integer', default: 1, min: 1, requiredWhen: 'metrics_enabled' },
  { name: 'metrics_pool_size', kind: 'integer', default: 16, min: 1, requiredWhen: 'metrics_enabled' },
  { name: 'metrics_port', kind: 'integer', default: 8089, min: 1, max: 65535 },
  { name: 'metrics_sample_interval', kind: 'integer', default: 15, min: 1, requiredWhen: 'metrics_enabled' },
  { name: 'metrics_timeout', kind: 'integer', default: 10, min: 0, requiredWhen: 'metrics_enabled' },
  { name: 'password_authentication_enabled_for_web', kind: 'boolean', default: true },
  { name: 'password_authentication_enabled_for_git', kind: 'boolean', default: true },
  { name: 'performance_bar_allowed_group_id', kind: 'string', default: null },
  { name: 'performance_bar_enabled', kind: 'boolean', default: false },
  { name: 'diagram_enabled', kind: 'boolean', default: false },
  { name: 'diagram_url', kind: 'string', default: null, requiredWhen: 'diagram_enabled', format: 'url' },
  // 0 disables polling.
  { name: 'polling_interval_multiplier', kind: 'decimal', default: 1.0, min: 0 },
  { name: 'project_export_enabled', kind: 'boolean', default: true },
  { name: 'prometheus_metrics_enabled', kind: 'boolean', default: true },
  { name: 'captcha_enabled', kind: 'boolean', default: false },
  { name: 'captcha_private_key', kind: 'string', default: null, requiredWhen: 'captcha_enabled' },
  { name: 'captcha_site_key', kind: 'string', default: null, requiredWhen: 'captcha_enabled' },
  { name: 'repository_checks_enabled', kind: 'boolean', default: true },
  { name: 'repository_storages', kind: 'string_array', default: REPOSITORY_STORAGES, values: REPOSITORY_STORAGES, nonEmpty: true },
  { name: 'require_two_factor_authentication', kind: 'boolean', default: false },
  { name: 'restricted_visibility_levels', kind: 'string_array', default: null, values: VISIBILITIES },
  // Lifetime (seconds, at least 2 hours) of runner authentication tokens; null: they never expire.
  { name: 'runner_token_expiration_interval', kind: 'integer', default: null, min: 7200 },
  { name: 'group_runner_token_expiration_interval', kind: 'integer', default: null, min: 7200 },
  { name: 'project_runner_token_expiration_interval', kind: 'integer', default: null, min: 7200 },
  { name: 'send_user_confirmation_email', kind: 'boolean', default: false },
  { name: 'errortrack_dsn', kind: 'string', default: null, requiredWhen: 'errortrack_enabled' },
  { name: 'errortrack_enabled', kind: 'boolean', default: false },
  { name: 'session_expire_delay', kind: 'integer', default: 10080, min: 0 },
  { name: 'shared_runners_enabled', kind: 'boolean', default: true },
  { name: 'shared_runners_text', kind: 'string', default: null, maxLength: MAX_SETTING_TEXT_LENGTH },
  { name: 'bgjobs_throttling_enabled', kind: 'boolean', default: false },
  { name: 'bgjobs_throttling_factor', kind: 'decimal', default: null, min: 0, max: 1, exclusive: true, requiredWhen: 'bgjobs_throttling_enabled' },
  { name: 'bgjobs_throttling_queues', kind: 'string_array', default: null, requiredWhen: 'bgjobs_throttling_enabled' },
  { name: 'sign_in_text', kind: 'string', default: null, maxLength: MAX_SETTING_TEXT_LENGTH },
  { name: 'signup_enabled', kind: 'boolean', default: true },
  // Seconds; 0 means unlimited.
  { name: 'terminal_max_session_time', kind: 'integer', default: 0, min: 0 },
  { name: 'two_factor_grace_period', kind: 'integer', default: 48, min: 0 },
  // User and IP rate limits (enforced by coordinator/http/throttle.ts): per user for signed-in
  // API and web requests, per IP address for anonymous ones. Counts and periods are above 0.
  ...throttleSettings('throttle_authenticated_api', 7200),
  ...throttleSettings('throttle_authenticated_web', 7200),
  ...throttleSettings('throttle_unauthenticated', 3600),
  { name: 'unique_ips_limit_enabled', kind: 'boolean', default: false },
  { name: 'unique_ips_limit_per_user', kind: 'integer', default: 10, min: 1, requiredWhen: 'unique_ips_limit_enabled' },
  { name: 'unique_ips_limit_time_window', kind: 'integer', default: 3600, min: 0, requiredWhen: 'unique_ips_limit_enabled' },
  { name: 'usage_ping_enabled', kind: 'boolean', default: true },
  { name: 'user_default_external', kind: 'boolean', default: false },
  { name: 'user_oauth_applications', kind: 'boolean', default: true },
  { name: 'version_check_enabled', kind: 'boolean', default: true },
] as const satisfies readonly SettingDefinition[];

/** Integer settings are stored in 32-bit columns in GitLab; larger values are refused. */
export const MAX_SETTING_INTEGER = 2147483647;

type KindValue = { string: string; boolean: boolean; integer: number; decimal: number; string_array: string[] };
type ValueOfDefinition<D> = D extends { kind: infer K extends SettingKind; default: infer V }
  ? KindValue[K] | (V extends null ? null : never)
  : never;

/** The settings' value types as the table declares them. */
export type SchemaSettings = { [D in (typeof SETTINGS_SCHEMA)[number] as D['name']]: ValueOfDefinition<D> };

export const SETTING_DEFINITIONS: ReadonlyMap<string, SettingDefinition> = new Map(
  (SETTINGS_SCHEMA as readonly SettingDefinition[]).map((definition) => [definition.name, definition]),
);

/** A fresh copy of the defaults (arrays copied, so callers may not mutate the table). */
export function defaultSettingValues(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const definition of SETTINGS_SCHEMA as readonly SettingDefinition[]) {
    out[definition.name] = Array.isArray(definition.default) ? [...(definition.default as string[])] : definition.default;
  }
  return out;
}
