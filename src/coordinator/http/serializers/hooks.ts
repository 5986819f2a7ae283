import { HOOK_EVENT_FLAGS, type HookEventFlag, type HookLogRecord, type HookRecord } from '../../../storage/types-hooks.ts';
import { alertStatus, type AlertStatus } from '../../services/hooks/hook-state.ts';

/** GitLab's ProjectHook entity (the token is write-only and never shown). */
export type ProjectHookJson = {
  id: number;
  url: string;
  name: string;
  description: string;
  created_at: string;
  project_id: number;
  enable_ssl_verification: boolean;
  alert_status: AlertStatus;
  disabled_until: string | null;
  push_events_branch_filter: string | null;
  branch_filter_strategy: string;
  repository_update_events: boolean;
  feature_flag_events: boolean;
  emoji_events: boolean;
  resource_access_token_events: boolean;
  url_variables: never[];
  custom_headers: never[];
  custom_webhook_template: null;
} & Record<HookEventFlag, boolean>;

export function serializeProjectHook(hook: HookRecord, now: number = Date.now()): ProjectHookJson {
  const status = alertStatus(hook, now);
  const flags = Object.fromEntries(HOOK_EVENT_FLAGS.map((flag) => [flag, hook.events[flag]])) as Record<HookEventFlag, boolean>;
  return {
    id: hook.id,
    url: hook.url,
    name: hook.name,
    description: hook.description,
    created_at: hook.created_at,
    project_id: hook.project_id ?? 0,
    ...flags,
    repository_update_events: false,
    feature_flag_events: false,
    emoji_events: false,
    resource_access_token_events: false,
    enable_ssl_verification: hook.enable_ssl_verification,
    alert_status: status,
    disabled_until: status === 'temporarily_disabled' ? hook.disabled_until : null,
    push_events_branch_filter: hook.push_events_branch_filter,
    branch_filter_strategy: hook.branch_filter_strategy,
    url_variables: [],
    custom_headers: [],
    custom_webhook_template: null,
  };
}

/** GitLab's GroupHook entity: the project hook's fields with `group_id` in place of `project_id`, `subgroup_events` and `member_events`. */
export function serializeGroupHook(hook: HookRecord, now: number = Date.now()) {
  const { project_id: _project, ...fields } = serializeProjectHook(hook, now);
  return { ...fields, group_id: hook.group_id ?? 0, subgroup_events: hook.subgroup_events, member_events: hook.member_events };
}

/** GitLab's SystemHook entity. */
export function serializeSystemHook(hook: HookRecord, now: number = Date.now()) {
  const status = alertStatus(hook, now);
  return {
    id: hook.id,
    url: hook.url,
    name: hook.name,
    description: hook.description,
    created_at: hook.created_at,
    push_events: hook.events.push_events,
    tag_push_events: hook.events.tag_push_events,
    merge_requests_events: hook.events.merge_requests_events,
    repository_update_events: hook.repository_update_events,
    enable_ssl_verification: hook.enable_ssl_verification,
    alert_status: status,
    disabled_until: status === 'temporarily_disabled' ? hook.disabled_until : null,
    url_variables: [] as never[],
  };
}

/** One logged delivery, as GitLab's hook events list shows it. */
export function serializeHookLog(log: HookLogRecord) {
  return {
    id: log.id,
    url: log.url,
    trigger: log.trigger,
    request_headers: log.request_headers,
    request_data: parsedOrText(log.request_data),
    response_headers: log.response_headers,
    response_body: log.response_body,
    execution_duration: log.execution_duration,
    response_status: log.response_status,
    internal_error_message: log.internal_error_message,
    created_at: log.created_at,
  };
}

/** The payload as sent (a JSON object), or its text when it was cut to the logged length. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
