import type { CoordinatorContext } from './context.ts';
import { HookDeliveries, type ProjectEventListener } from './services/hooks/hook-deliveries.ts';
import { HookEventRecorder } from './services/hooks/hook-events.ts';
import { HookPayloads } from './services/hooks/hook-payloads.ts';
import { HookTestService } from './services/hooks/hook-test.ts';
import { GroupHooksService } from './services/hooks/group-hooks.ts';
import { ProjectHooksService } from './services/hooks/project-hooks.ts';
import { SystemHooksService } from './services/hooks/system-hooks.ts';
import { HookTestRateLimit } from './services/hooks/test-rate-limit.ts';
import { TaskQueue, TaskWorker } from './services/task-queue.ts';

/** The webhooks area: project, group and system hooks' settings, logs and test calls (these send through the CI area's deliveries). */
export function buildHookServices(context: CoordinatorContext, sending: Pick<ReturnType<typeof buildHookDeliveries>, 'hookDeliveries' | 'hookEvents' | 'hookPayloads'>) {
  const { stores, lookup, permissions, settings } = context;
  const projectHooks = new ProjectHooksService({ hooks: stores.hooks, deliveries: stores.hookDeliveries, lookup, permissions, settings });
  const rateLimit = new HookTestRateLimit();
  const groupHooks = new GroupHooksService({ hooks: stores.hooks, deliveries: stores.hookDeliveries, lookup, permissions, settings });
  const systemHooks = new SystemHooksService({ hooks: stores.hooks, permissions, settings, deliveries: sending.hookDeliveries, rateLimit });
  const hookTests = new HookTestService({
    projectHooks, groupHooks, projects: stores.projects, rateLimit, deliveries: sending.hookDeliveries, payloads: sending.hookPayloads, events: sending.hookEvents,
    issues: stores.issues, mergeRequests: stores.mergeRequests, notes: stores.notes, pipelines: stores.pipelines, jobs: stores.jobs, users: stores.users,
    deployments: stores.deployments, releases: stores.releases, releaseLinks: stores.releaseLinks,
    namespaces: stores.namespaces, repositories: context.repositories, externalUrl: context.config.externalUrl,
  });
  return { projectHooks, groupHooks, systemHooks, hookTests };
}

/** How webhook deliveries run (tests shorten the waits). */
export interface HookDeliveryOptions {
  /** Hooks sent to at once by this process (default 8): a slow receiver holds one of them. */
  concurrency?: number;
  /** One request's time limit (default 10 s). */
  timeoutMs?: number;
  /** The first retry's wait (default 10 s), doubled for the next. */
  retryBaseMs?: number;
}

/**
 * Webhook deliveries on a task worker of their own: its slots are not the CI worker's, so
 * slow receivers never hold up pipelines, and the CI work never holds up deliveries.
 */
export function buildHookDeliveries(context: CoordinatorContext, options: HookDeliveryOptions & { pollIntervalMs?: number; alsoHeard?: ProjectEventListener } = {}) {
  const { stores } = context;
  let wakeWorker: () => void = () => {};
  const queue = new TaskQueue(stores.tasks, () => wakeWorker());
  const payloads = new HookPayloads({ projects: stores.projects, namespaces: stores.namespaces, users: stores.users, repositories: context.repositories, externalUrl: context.config.externalUrl });
  const deliveries = new HookDeliveries({
    hooks: stores.hooks,
    deliveries: stores.hookDeliveries,
    projects: stores.projects,
    namespaces: stores.namespaces,
    users: stores.users,
    members: stores.members,
    payloads,
    settings: context.settings,
    queue,
    instanceUrl: context.config.externalUrl,
    logger: context.logger,
    timeoutMs: options.timeoutMs,
    retryBaseMs: options.retryBaseMs,
    alsoHeard: options.alsoHeard,
  });
  const worker = new TaskWorker(stores.tasks, {
    handlers: deliveries.handlers(),
    logger: context.logger,
    concurrency: options.concurrency ?? 8,
    pollIntervalMs: options.pollIntervalMs,
    owner: context.instance.id,
  });
  wakeWorker = () => worker.wake();
  const events = new HookEventRecorder({
    deliveries, projects: stores.projects, namespaces: stores.namespaces, users: stores.users, labels: stores.labels, mergeRequests: stores.mergeRequests,
    jobs: stores.jobs, runners: stores.runners, deployments: stores.deployments, environments: stores.environments, repositories: context.repositories, externalUrl: context.config.externalUrl, logger: context.logger,
  });
  return { hookDeliveries: deliveries, hookWorker: worker, hookEvents: events, hookPayloads: payloads };
}
