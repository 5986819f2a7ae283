import type { CoordinatorContext } from './context.ts';
import type { ProjectEventListener } from './services/hooks/hook-deliveries.ts';
import { HookEventRecorder } from './services/hooks/hook-events.ts';
import { HookTestService } from './services/hooks/hook-test.ts';
import { GroupHooksService } from './services/hooks/group-hooks.ts';
import { ProjectHooksService } from './services/hooks/project-hooks.ts';
import { SystemHooksService } from './services/hooks/system-hooks.ts';
import { HookTestRateLimit } from './services/hooks/test-rate-limit.ts';
import { buildHookSending, HOOK_CONCURRENCY, inProcessHookWorker, type HookWorker } from './hook-sending.ts';
import { HookThread, type HookThreadStorage } from './hook-thread.ts';

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
  /**
   * The database the coordinator opened (given by createCoordinator): with a SQLite file or
   * PostgreSQL the deliveries are sent from a thread of their own, on a connection of its own
   * (hook-thread.ts); with an in-memory database, or without this, in the coordinator's thread.
   */
  storage?: HookThreadStorage;
  /** Sends from the coordinator's thread whatever the database (an embedding host that wants no thread). */
  inProcess?: boolean;
}

/** Whether deliveries run in a thread of their own: a database another connection can share, unless told otherwise. */
export function hookThreadStorage(options: HookDeliveryOptions): HookThreadStorage | undefined {
  const { storage } = options;
  return storage === undefined || options.inProcess === true || storage.databaseUrl === ':memory:' ? undefined : storage;
}

/**
 * Webhook deliveries: recorded here (before a push is acknowledged), sent by a worker of their
 * own, in a thread of its own when the database allows (`hookWorker.mode`).
 */
export function buildHookDeliveries(context: CoordinatorContext, options: HookDeliveryOptions & { pollIntervalMs?: number; alsoHeard?: ProjectEventListener } = {}) {
  const { stores } = context;
  const storage = hookThreadStorage(options);
  const thread = storage
    ? new HookThread(
        {
          storage,
          dataDir: context.config.dataDir,
          externalUrl: context.config.externalUrl,
          instanceId: context.instance.id,
          logLevel: context.logger.level,
          concurrency: options.concurrency ?? HOOK_CONCURRENCY,
          timeoutMs: options.timeoutMs,
          retryBaseMs: options.retryBaseMs,
          pollIntervalMs: options.pollIntervalMs,
        },
        { logger: context.logger, tasks: stores.tasks },
      )
    : undefined;
  const parts = { stores, repositories: context.repositories, settings: context.settings, externalUrl: context.config.externalUrl, logger: context.logger, owner: context.instance.id };
  const sending = buildHookSending(parts, { ...options, wake: thread ? () => thread.wake() : undefined });
  const hookWorker: HookWorker = thread ?? inProcessHookWorker(sending.worker);
  const events = new HookEventRecorder({
    deliveries: sending.deliveries, projects: stores.projects, namespaces: stores.namespaces, users: stores.users, labels: stores.labels, mergeRequests: stores.mergeRequests, notes: stores.notes,
    jobs: stores.jobs, runners: stores.runners, deployments: stores.deployments, environments: stores.environments, repositories: context.repositories, pipelines: stores.pipelines,
    externalUrl: context.config.externalUrl, logger: context.logger,
  });
  return { hookDeliveries: sending.deliveries, hookWorker, hookEvents: events, hookPayloads: sending.payloads };
}
