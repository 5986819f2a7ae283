import type { Generated } from '#deps/kysely';

/** The table of migration 027 (project integrations); part of DatabaseSchema (schema.ts). Flags are 0/1. */
export interface IntegrationsTable {
  id: Generated<number>;
  project_id: number;
  /** The neutral slug (`emails-on-push`, `task-comments` …). */
  slug: string;
  active: number;
  commit_events: number;
  push_events: number;
  issues_events: number;
  alert_events: number;
  confidential_issues_events: number;
  merge_requests_events: number;
  tag_push_events: number;
  deployment_events: number;
  note_events: number;
  confidential_note_events: number;
  pipeline_events: number;
  wiki_page_events: number;
  job_events: number;
  comment_on_event_enabled: number;
  vulnerability_events: number;
  /** A JSON object of the integration's settings. */
  properties: string;
  created_at: string;
  updated_at: string;
}
