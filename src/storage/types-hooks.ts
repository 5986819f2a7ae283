/** Webhooks: project, group and system hooks (GitLab's ProjectHook, GroupHook, SystemHook), their queued deliveries and the log of sent ones. */

/** The event subscriptions of a project hook, in GitLab's ProjectHook entity order. */
export const HOOK_EVENT_FLAGS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'note_events',
  'confidential_note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
  'deployment_events',
  'releases_events',
] as const;

export type HookEventFlag = (typeof HOOK_EVENT_FLAGS)[number];
export type HookEvents = Record<HookEventFlag, boolean>;

/** GitLab's `branch_filter_strategy`. */
export type BranchFilterStrategy = 'wildcard' | 'regex' | 'all_branches';

/** Whose hook it is: a project's, a group's (its projects' events, subgroups included) or the instance's (system hooks). */
export type HookOwner = { kind: 'project'; id: number } | { kind: 'group'; id: number } | { kind: 'system' };
export type HookKind = HookOwner['kind'];

export interface HookSettings {
  url: string;
  name: string;
  description: string;
  /** Sent as X-Gitlab-Token; never shown by the API. */
  token: string | null;
  enable_ssl_verification: boolean;
  push_events_branch_filter: string | null;
  branch_filter_strategy: BranchFilterStrategy;
  events: HookEvents;
  /** System hooks only: a push's `repository_update` event. */
  repository_update_events: boolean;
  /** Group hooks only: subgroups created or deleted under the group. */
  subgroup_events: boolean;
  /** Group hooks only: the group's members added, edited or removed. */
  member_events: boolean;
}

export interface HookRecord extends HookSettings {
  id: number;
  kind: HookKind;
  /** Set for project hooks. */
  project_id: number | null;
  /** Set for group hooks. */
  group_id: number | null;
  /** Failed deliveries in a row (reset by a success or an edit). */
  recent_failures: number;
  /** Temporary disables so far in this run of failures (the back-off's exponent). */
  backoff_count: number;
  /** Set while temporarily disabled. */
  disabled_until: string | null;
  /** Disabled until an edit re-enables it. */
  permanently_disabled: boolean;
  created_at: string;
}

/** One event queued for one hook, sent in `id` order. */
export interface HookDeliveryRecord {
  id: number;
  hook_id: number;
  /** `push_hooks`, `tag_push_hooks` … (GitLab's hook scope names; `trigger` in its logs). */
  trigger: string;
  /** What the payload is built from at send time (small: ids and SHAs). */
  event: unknown;
  uuid: string;
  attempts: number;
  /** Not before then (a retry's back-off). */
  next_attempt_at: string;
  created_at: string;
}

/** A sent (or given-up) delivery, as GitLab's hook logs show it. */
export interface HookLogRecord {
  id: number;
  hook_id: number;
  trigger: string;
  url: string;
  request_headers: Record<string, string>;
  request_data: string;
  response_status: string;
  response_headers: Record<string, string>;
  response_body: string;
  execution_duration: number;
  internal_error_message: string | null;
  created_at: string;
}

export type NewHookLog = Omit<HookLogRecord, 'id'>;

export interface HooksStore {
  create(owner: HookOwner, settings: HookSettings, now: string): Promise<HookRecord>;
  find(owner: HookOwner, hookId: number): Promise<HookRecord | undefined>;
  findById(hookId: number): Promise<HookRecord | undefined>;
  /** An owner's hooks by id, one page. */
  list(owner: HookOwner, page: { limit: number; offset: number }): Promise<{ hooks: HookRecord[]; total: number }>;
  /**
   * The hooks subscribed to `flag` of the project and of the groups above it (its namespace and
   * that one's ancestors), by id: one statement, whether the groups have hooks or not.
   */
  listSubscribed(projectId: number, flag: HookEventFlag): Promise<HookRecord[]>;
  /** The group hooks of these groups with `flag` on, by id. */
  listForGroups(groupIds: readonly number[], flag: 'subgroup_events' | 'member_events'): Promise<HookRecord[]>;
  /** System hooks, by id: those with `flag` on, or every one (`null`: the events they all receive). */
  listSystem(flag: 'push_events' | 'tag_push_events' | 'merge_requests_events' | 'repository_update_events' | null): Promise<HookRecord[]>;
  /** Saves the settings and re-enables the hook (an edit clears its failures, as GitLab's does). */
  update(hookId: number, settings: HookSettings): Promise<HookRecord | undefined>;
  remove(owner: HookOwner, hookId: number): Promise<boolean>;
  /** Records the outcome of a delivery attempt on the hook's failure counters. */
  saveFailureState(hookId: number, state: Pick<HookRecord, 'recent_failures' | 'backoff_count' | 'disabled_until' | 'permanently_disabled'>): Promise<void>;
}

export interface HookDeliveriesStore {
  /** Queues one delivery per hook, in the order given (their ids keep the order). */
  enqueue(deliveries: ReadonlyArray<{ hook_id: number; trigger: string; event: unknown; uuid: string }>, now: string): Promise<void>;
  /** The hook's oldest queued delivery. */
  next(hookId: number): Promise<HookDeliveryRecord | undefined>;
  /** Postpones a delivery after a failed attempt. */
  postpone(id: number, attempts: number, nextAttemptAt: string): Promise<void>;
  /** Removes a sent or given-up delivery. */
  remove(id: number): Promise<void>;
  /** Drops every queued delivery of the hook (it was disabled); answers how many. */
  dropAll(hookId: number): Promise<number>;
  /**
   * Takes the hook's sending lease (one sender per hook keeps its deliveries in order); false
   * while another holder's lease lasts.
   */
  lease(hookId: number, owner: string, now: string, until: string): Promise<boolean>;
  release(hookId: number, owner: string): Promise<void>;
  /**
   * Gives the lease up unless a delivery of the hook is queued, in one statement (so none is
   * queued unseen in between); false when one is queued or the lease is not the owner's.
   */
  releaseIfIdle(hookId: number, owner: string): Promise<boolean>;
  /** When the current lease ends (null: none). */
  leaseEnd(hookId: number): Promise<string | null>;
  log(entry: NewHookLog, keep: number): Promise<void>;
  /** The hook's logged deliveries, newest first, one page; `status` filters by outcome. */
  logs(hookId: number, filter: { status?: 'successful' | 'client_failure' | 'server_failure' }, page: { limit: number; offset: number }): Promise<{ logs: HookLogRecord[]; total: number }>;
}
