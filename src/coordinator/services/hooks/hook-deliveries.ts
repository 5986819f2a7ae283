import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../shared/logger.ts';
import type { HookDeliveriesStore, HookEventFlag, HookRecord, HooksStore } from '../../../storage/types-hooks.ts';
import type { MembersStore, NamespacesStore, ProjectsStore, UsersStore } from '../../../storage/types.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import type { PushEvent, SystemEvent } from '../events.ts';
import type { SettingsService } from '../instance/settings.ts';
import type { OutboundRequest, OutboundResponse } from '../outbound/outbound-http.ts';
import type { TaskHandler } from '../task-queue.ts';
import { branchSelected, regexBranchSelected } from './branch-filter.ts';
import { sendHookRequest, type HookAttempt } from './hook-request.ts';
import { localRequestsAllowed } from './hook-settings.ts';
import { repositoryUpdateData, SYSTEM_HOOK_HEADER } from './system-hook-data.ts';
import { SystemEventHooks } from './system-event-hooks.ts';
import { TRIGGERS, type HookEvent, type HookPayloads, type HookTrigger } from './hook-payloads.ts';
import { afterFailure, executable, SUCCEEDED } from './hook-state.ts';

/** Task kind that sends one hook's queued deliveries, oldest first (payload: `{ hook_id }`). */
export const HOOK_DELIVERY_TASK = 'hooks.deliver';
/** Attempts of one delivery: the first and two retries (after no answer, a time-out, a 5xx or 429). */
export const HOOK_DELIVERY_ATTEMPTS = 3;
/** Logged deliveries kept per hook. */
export const HOOK_LOGS_KEPT = 100;
/** A hook's lease lasts one request's time limit and this margin … */
const LEASE_MARGIN_MS = 5_000;
/** … and is extended before a request once less than the time limit and this is left (not before each request). */
const LEASE_RENEWAL_MS = 1_000;

export interface HookDeliveriesDeps {
  hooks: Pick<HooksStore, 'listSubscribed' | 'listSystem' | 'listForGroups' | 'findById' | 'saveFailureState'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById' | 'ancestors'>;
  users: Pick<UsersStore, 'findById' | 'findByIds'>;
  /** A group project's owners in system events. */
  members: Pick<MembersStore, 'listForSource'>;
  deliveries: HookDeliveriesStore;
  payloads: HookPayloads;
  settings: Pick<SettingsService, 'values'>;
  queue: { enqueue(task: NewTask): Promise<unknown>; enqueueAll(tasks: readonly NewTask[]): Promise<void> };
  instanceUrl: string;
  logger: Logger;
  /** One request's time limit (default 10 s, GitLab's webhook timeout). */
  timeoutMs?: number;
  /** The first retry waits this long, each further one twice as long (default 10 s). */
  retryBaseMs?: number;
  send?: (request: OutboundRequest) => Promise<OutboundResponse>;
  clock?: () => number;
  /** Hears the same project events (the outbound integrations), from the one payload built for both. */
  alsoHeard?: ProjectEventListener;
}

/** Another subscriber to the events of `recordEvent`: asked first, so the payload is built only when someone wants it. */
export interface ProjectEventListener {
  wants(projectId: number, flag: HookEventFlag): Promise<boolean>;
  record(projectId: number, flag: HookEventFlag, payload: Record<string, unknown>): Promise<void>;
}

/**
 * Webhook deliveries. An event queues one delivery row per subscribed, enabled hook (before a
 * push is acknowledged, so none is lost) and one task per hook; the task sends that hook's
 * deliveries in order under a lease on the hook, so a hook sees its events in the order they
 * happened while other hooks' tasks run beside it. A failure counts on the hook (GitLab's
 * auto-disabling rules, hook-state.ts) and is retried with back-off; a disabled hook's queue
 * is dropped, as GitLab fires no disabled hook.
 */
export class HookDeliveries {
  private readonly systemEvents: SystemEventHooks;

  constructor(private readonly deps: HookDeliveriesDeps) {
    this.systemEvents = new SystemEventHooks(deps);
  }

  /**
   * For `events.onPushRecorded`: the push to the project's and its groups' hooks and to the
   * system hooks with `push_events` / `tag_push_events` (`repository_update` is one per push:
   * `recordRepositoryUpdate`).
   */
  async recordPush(push: PushEvent): Promise<void> {
    const tag = push.ref.startsWith('refs/tags/');
    if (!tag && !push.ref.startsWith('refs/heads/')) return;
    const flag = tag ? 'tag_push_events' : 'push_events';
    const hooks = [...(await this.deps.hooks.listSubscribed(push.project_id, flag)), ...(await this.deps.hooks.listSystem(flag))];
    const now = this.now();
    const branch = push.ref.slice('refs/heads/'.length);
    const selected = hooks.filter((hook) => executable(hook, now) && (tag || branchSelected(hook.branch_filter_strategy, hook.push_events_branch_filter, branch)));
    await this.queue(selected, tag ? TRIGGERS.tag_push.trigger : TRIGGERS.push.trigger, { kind: 'push', push });
  }

  /** For `events.onPushesRecorded`: one `repository_update` for the whole push to the system hooks with `repository_update_events`. */
  async recordRepositoryUpdate(pushes: PushEvent[]): Promise<void> {
    const refs = pushes.filter((push) => push.ref.startsWith('refs/heads/') || push.ref.startsWith('refs/tags/'));
    const [first] = refs;
    if (!first) return;
    const updates = (await this.deps.hooks.listSystem('repository_update_events')).filter((hook) => executable(hook, this.now()));
    if (updates.length === 0) return;
    const payload = await this.repositoryUpdate(first, refs);
    if (payload) await this.queue(updates, TRIGGERS.repository_update.trigger, { kind: 'payload', payload });
  }

  /**
   * For `events.onSystemEvent`: the event (`project_create`, `user_destroy` …) for every enabled
   * system hook, and member and subgroup events for the group hooks that subscribe.
   */
  async recordSystemEvent(event: SystemEvent): Promise<void> {
    await this.systemEvents.record(event, this.now(), (hooks, trigger, payload) => this.queue(hooks, trigger.trigger, { kind: 'payload', payload }));
  }

  /**
   * Queues an event other than a push for the project's enabled hooks subscribed to `flag`, and
   * hands it to `alsoHeard`; `payload` is asked for only when one of them wants it (it may read
   * the database), once for all.
   */
  async recordEvent(projectId: number, flag: HookEventFlag, trigger: HookTrigger, payload: () => Promise<Record<string, unknown> | undefined>): Promise<void> {
    const now = this.now();
    // GitLab's system hooks hear merge request events too (their only non-push flag).
    const system = flag === 'merge_requests_events' ? await this.deps.hooks.listSystem(flag) : [];
    const hooks = [...(await this.deps.hooks.listSubscribed(projectId, flag)), ...system].filter((hook) => executable(hook, now));
    const heard = (await this.deps.alsoHeard?.wants(projectId, flag)) === true;
    if (hooks.length === 0 && !heard) return;
    const built = await payload();
    if (!built) return;
    await this.queue(hooks, trigger.trigger, { kind: 'payload', payload: built });
    if (heard) await this.deps.alsoHeard?.record(projectId, flag, built);
  }

  /**
   * A test call (`POST .../hooks/:hook_id/test/:trigger`): sent now, in the caller's request and
   * whatever the hook's state (GitLab forces it), logged and counted as any delivery; no retry.
   */
  async sendNow(hook: HookRecord, trigger: HookTrigger, payload: Record<string, unknown>): Promise<HookAttempt> {
    const attempt = await this.send(hook, trigger.trigger, trigger.header, randomUUID(), payload);
    await this.deps.deliveries.log({ ...attempt.log, created_at: this.iso(this.now()) }, HOOK_LOGS_KEPT);
    const current = (await this.deps.hooks.findById(hook.id)) ?? hook;
    if (attempt.ok && (current.recent_failures > 0 || current.disabled_until !== null || current.permanently_disabled)) await this.deps.hooks.saveFailureState(hook.id, SUCCEEDED);
    if (!attempt.ok) await this.deps.hooks.saveFailureState(hook.id, afterFailure(current, this.now()));
    return attempt;
  }

  private async repositoryUpdate(first: PushEvent, refs: PushEvent[]): Promise<Record<string, unknown> | undefined> {
    const project = await this.deps.projects.findById(first.project_id);
    if (!project) return undefined;
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    const user = first.user_id === null ? undefined : await this.deps.users.findById(first.user_id);
    return repositoryUpdateData({ project, namespace, externalUrl: this.deps.instanceUrl }, user, refs);
  }

  handlers(): Record<string, TaskHandler> {
    return { [HOOK_DELIVERY_TASK]: async (task) => this.drain((task.payload as { hook_id: number }).hook_id) };
  }

  private async queue(hooks: readonly HookRecord[], trigger: string, event: HookEvent): Promise<void> {
    if (hooks.length === 0) return;
    const uuid = randomUUID();
    const now = this.iso(this.now());
    await this.deps.deliveries.enqueue(hooks.map((hook) => ({ hook_id: hook.id, trigger, event, uuid })), now);
    // The hooks' tasks in one statement too: an event costs the request the same two writes for one hook or many.
    await this.deps.queue.enqueueAll(hooks.map((hook) => this.sendTask(hook.id, now)));
  }

  private sendTask(hookId: number, runAt: string): NewTask {
    return { kind: HOOK_DELIVERY_TASK, payload: { hook_id: hookId }, runAt, maxAttempts: 5, dedupeKey: `${HOOK_DELIVERY_TASK}:${hookId}` };
  }

  /**
   * A task for the hook at `at`. The look after a busy lease has a key of its own: sharing the
   * events' key would fold a new event's task into it, and delay that event until the lease ends.
   */
  private async schedule(hookId: number, at: number, purpose: 'send' | 'lease check' = 'send'): Promise<void> {
    const task = this.sendTask(hookId, this.iso(at));
    await this.deps.queue.enqueue(purpose === 'send' ? task : { ...task, dedupeKey: `${task.dedupeKey}:lease` });
  }

  /** Sends the hook's due deliveries in order, while this call holds the hook's lease. */
  private async drain(hookId: number): Promise<void> {
    const owner = randomUUID();
    for (;;) {
      const leasedUntil = await this.lease(hookId, owner);
      if (leasedUntil === undefined) {
        // Another sender holds the hook: it sends what is queued. Look again when its lease ends, in case it died.
        const end = await this.deps.deliveries.leaseEnd(hookId);
        if (end !== null) {
          await this.schedule(hookId, Date.parse(end) + 1, 'lease check');
          return;
        }
        // No lease to wait for: the holder just gave it up (take it), or the hook is gone (with its deliveries).
        if (!(await this.deps.hooks.findById(hookId))) return;
        continue;
      }
      let released = false;
      try {
        released = (await this.sendQueued(hookId, owner, leasedUntil)) === 'released';
      } finally {
        if (!released) await this.deps.deliveries.release(hookId, owner);
      }
      return;
    }
  }

  /**
   * Sends due deliveries until the queue is empty ('released': the lease was given up in the
   * statement that found it empty) or the next one must wait ('stopped': the lease is still held).
   */
  private async sendQueued(hookId: number, owner: string, leasedUntil: number): Promise<'released' | 'stopped'> {
    let lease = leasedUntil;
    let foundEmpty = false;
    for (;;) {
      // The queue first: an empty one needs no look at the hook (a deleted hook's deliveries went with it).
      const delivery = await this.deps.deliveries.next(hookId);
      if (!delivery) {
        if (await this.deps.deliveries.releaseIfIdle(hookId, owner)) return 'released';
        // A delivery was queued since the look (send it under this lease), or the lease is not ours any more.
        if (foundEmpty) return 'stopped';
        foundEmpty = true;
        continue;
      }
      foundEmpty = false;
      // Read again before each delivery: an edit (URL, token) applies to the next one.
      const hook = await this.deps.hooks.findById(hookId);
      if (!hook) return 'stopped';
      if (!executable(hook, this.now())) {
        const dropped = await this.deps.deliveries.dropAll(hookId);
        if (dropped > 0) this.deps.logger.info({ hook: hookId, dropped }, 'webhook disabled: its queued deliveries were dropped');
        return 'stopped';
      }
      const due = Date.parse(delivery.next_attempt_at);
      if (due > this.now()) {
        await this.schedule(hookId, due);
        return 'stopped';
      }
      const event = delivery.event as HookEvent;
      if (!(await selectedWhenSent(hook, event))) {
        await this.deps.deliveries.remove(delivery.id);
        continue;
      }
      // The lease must outlast this request: taken again only when less than that is left.
      if (lease - this.now() < this.timeoutMs() + LEASE_RENEWAL_MS) lease = (await this.lease(hookId, owner)) ?? lease;
      const payload = await this.deps.payloads.build(event);
      if (!payload) {
        await this.deps.deliveries.remove(delivery.id);
        continue;
      }
      const attempt = await this.send(hook, delivery.trigger, hook.kind === 'system' ? SYSTEM_HOOK_HEADER : headerOf(delivery.trigger), delivery.uuid, payload);
      await this.deps.deliveries.log({ ...attempt.log, created_at: this.iso(this.now()) }, HOOK_LOGS_KEPT);
      if (attempt.ok) {
        await this.deps.deliveries.remove(delivery.id);
        if (hook.recent_failures > 0 || hook.disabled_until !== null) await this.deps.hooks.saveFailureState(hookId, SUCCEEDED);
        continue;
      }
      const state = afterFailure(hook, this.now());
      await this.deps.hooks.saveFailureState(hookId, state);
      const attempts = delivery.attempts + 1;
      if (attempt.retryable && attempts < HOOK_DELIVERY_ATTEMPTS && executable(state, this.now())) {
        const retryAt = this.now() + (this.deps.retryBaseMs ?? 10_000) * 2 ** (attempts - 1);
        await this.deps.deliveries.postpone(delivery.id, attempts, this.iso(retryAt));
        await this.schedule(hookId, retryAt);
        return 'stopped';
      }
      await this.deps.deliveries.remove(delivery.id);
    }
  }

  private async send(hook: HookRecord, trigger: string, eventHeader: string, eventUuid: string, payload: Record<string, unknown>): Promise<HookAttempt> {
    return sendHookRequest({
      hook,
      trigger,
      eventHeader,
      eventUuid,
      payload,
      instanceUrl: this.deps.instanceUrl,
      allowLocal: await localRequestsAllowed(this.deps.settings, hook.kind),
      timeoutMs: this.timeoutMs(),
      send: this.deps.send,
      clock: this.deps.clock,
    });
  }

  /** Takes (or extends) the hook's lease for one request's time limit and a margin; answers its end, or undefined when another holds it. */
  private async lease(hookId: number, owner: string): Promise<number | undefined> {
    const now = this.now();
    const until = now + this.timeoutMs() + LEASE_MARGIN_MS;
    return (await this.deps.deliveries.lease(hookId, owner, this.iso(now), this.iso(until))) ? until : undefined;
  }

  private timeoutMs(): number {
    return this.deps.timeoutMs ?? 10_000;
  }

  private now(): number {
    return (this.deps.clock ?? Date.now)();
  }

  private iso(at: number): string {
    return new Date(at).toISOString();
  }
}

/** A branch push to a hook with a regex filter is matched here, off the push's request (branch-filter.ts). */
async function selectedWhenSent(hook: HookRecord, event: HookEvent): Promise<boolean> {
  if (event.kind !== 'push' || !event.push.ref.startsWith('refs/heads/')) return true;
  return regexBranchSelected(hook, event.push.ref.slice('refs/heads/'.length));
}

function headerOf(trigger: string): string {
  return Object.values(TRIGGERS).find((entry) => entry.trigger === trigger)?.header ?? 'Push Hook';
}
