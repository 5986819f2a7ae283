import type { Generated } from '#deps/kysely';

/** The tables of migrations 032, 037 and 039 (webhooks); part of DatabaseSchema (schema.ts). Flags are 0/1. */
export interface WebHooksTable {
  id: Generated<number>;
  /** `project`, `group` or `system`. */
  kind: string;
  project_id: number | null;
  group_id: number | null;
  repository_update_events: number;
  /** Group hooks only (039). */
  subgroup_events: number;
  member_events: number;
  url: string;
  name: string;
  description: string;
  token: string | null;
  enable_ssl_verification: number;
  push_events_branch_filter: string | null;
  branch_filter_strategy: string;
  push_events: number;
  tag_push_events: number;
  issues_events: number;
  confidential_issues_events: number;
  merge_requests_events: number;
  note_events: number;
  confidential_note_events: number;
  job_events: number;
  pipeline_events: number;
  wiki_page_events: number;
  deployment_events: number;
  releases_events: number;
  recent_failures: number;
  backoff_count: number;
  disabled_until: string | null;
  permanently_disabled: number;
  /** Who sends this hook's deliveries now, and until when (one sender keeps their order). */
  delivery_owner: string | null;
  delivery_lease_until: string | null;
  created_at: string;
}

export interface WebHookDeliveriesTable {
  id: Generated<number>;
  hook_id: number;
  trigger: string;
  /** JSON: what the payload is built from. */
  event: string;
  uuid: string;
  attempts: number;
  next_attempt_at: string;
  created_at: string;
}

export interface WebHookLogsTable {
  id: Generated<number>;
  hook_id: number;
  trigger: string;
  url: string;
  /** JSON objects. */
  request_headers: string;
  request_data: string;
  response_status: string;
  response_headers: string;
  response_body: string;
  execution_duration: number;
  internal_error_message: string | null;
  created_at: string;
}
