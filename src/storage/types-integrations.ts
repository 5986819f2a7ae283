/** Project integrations (GitLab's "services"): one row per project and integration, keyed by the neutral slug. */

/** The event subscriptions GitLab's Integration entity shows, in its order. */
export const INTEGRATION_EVENT_FLAGS = [
  'commit_events',
  'push_events',
  'issues_events',
  'alert_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'deployment_events',
  'note_events',
  'confidential_note_events',
  'pipeline_events',
  'wiki_page_events',
  'job_events',
  'comment_on_event_enabled',
  'vulnerability_events',
] as const;

export type IntegrationEventFlag = (typeof INTEGRATION_EVENT_FLAGS)[number];

export type IntegrationEvents = Record<IntegrationEventFlag, boolean>;

/** A property value as PUT parsed it: strings, parsed booleans and integers. */
export type IntegrationPropertyValue = string | boolean | number;

export interface IntegrationRecord {
  id: number;
  project_id: number;
  slug: string;
  active: boolean;
  events: IntegrationEvents;
  /** Every setting, secrets included (the API leaves those out of its answers). */
  properties: Record<string, IntegrationPropertyValue>;
  created_at: string;
  updated_at: string;
}

export interface IntegrationWrite {
  active: boolean;
  events: IntegrationEvents;
  properties: Record<string, IntegrationPropertyValue>;
}

export interface IntegrationsStore {
  find(projectId: number, slug: string): Promise<IntegrationRecord | undefined>;
  /** Active integrations of a project, by slug. */
  listActive(projectId: number): Promise<IntegrationRecord[]>;
  /** Creates the project's row for the slug or replaces its settings (one statement, safe under concurrent calls). */
  save(projectId: number, slug: string, write: IntegrationWrite, now: string): Promise<IntegrationRecord>;
  /** Removes the row; false when there was none. */
  remove(projectId: number, slug: string): Promise<boolean>;
}
