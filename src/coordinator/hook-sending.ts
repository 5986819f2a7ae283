import type { Logger } from '../shared/logger.ts';
import type { RepositoryManager } from '../storage/git/types.ts';
import type { SqlStores } from '../storage/sql/stores/index.ts';
import { HookDeliveries, type ProjectEventListener } from './services/hooks/hook-deliveries.ts';
import { HookPayloads } from './services/hooks/hook-payloads.ts';
import type { SettingsService } from './services/instance/settings.ts';
import type { TaskRecord } from '../storage/types-tasks.ts';
import { afterCurrentRequest } from './request-scope.ts';
import { TaskQueue, TaskWorker, type TaskHandler } from './services/task-queue.ts';

/**
 * A delivery recorded by a request is sent once that request has answered (the push's client
 * has its answer before any receiver is called), at the latest this long after it was recorded.
 */
const SEND_AFTER_REQUEST_MAX_MS = 1_000;

/** Hooks sent to at once by one coordinator, unless told otherwise. */
export const HOOK_CONCURRENCY = 8;

/** The worker sending the deliveries, in this thread or in one of its own. */
export interface HookWorker {
  /** Where it sends from. */
  readonly mode: 'thread' | 'in-process';
  readonly kinds: readonly string[];
  readonly concurrency: number;
  readonly started: boolean;
  /**
   * Whether each request should run in a request scope (request-scope.ts), so that the
   * deliveries it records are sent once it has answered: while a delivery thread runs. The scope
   * costs every request a little (Node's async hooks track its promises), so a coordinator that
   * sends no webhooks, or sends them from its own thread, pays nothing for it.
   */
  readonly defersToRequests: boolean;
  start(): void;
  /** A delivery task was enqueued by this process: claim it now rather than at the next poll. */
  wake(): void;
  /** Claims nothing more and waits for the deliveries being sent (see TaskWorker.stop); `start` goes on. */
  stop(graceMs?: number): Promise<void>;
  /** Stops for good (the coordinator's shutdown): a thread closes its connections and ends. */
  close(graceMs?: number): Promise<void>;
}

export interface HookSendingOptions {
  concurrency?: number;
  timeoutMs?: number;
  retryBaseMs?: number;
  pollIntervalMs?: number;
  alsoHeard?: ProjectEventListener;
  /** Wakes the worker that sends, when it is not this one (the thread's). */
  wake?: () => void;
  /** Told of each delivery task as it is claimed, before it runs (the thread's priority follows how late they are). */
  onClaim?: (task: TaskRecord) => void;
}

/** The parts of a coordinator that sending deliveries needs, in whichever thread sends them. */
export interface HookSendingParts {
  stores: Pick<SqlStores, 'tasks' | 'hooks' | 'hookDeliveries' | 'projects' | 'namespaces' | 'users' | 'members'>;
  repositories: RepositoryManager;
  settings: SettingsService;
  externalUrl: string;
  logger: Logger;
  /** The task worker's owner (this coordinator's instance id). */
  owner: string;
}

/**
 * The deliveries' service and their own task worker (its slots are not the CI worker's, so slow
 * receivers never hold up pipelines, and the CI work never holds up deliveries). `wake` tells
 * the worker that sends of a task just enqueued here.
 */
export function buildHookSending(parts: HookSendingParts, options: HookSendingOptions = {}) {
  const { stores } = parts;
  let wakeWorker: () => void = options.wake ?? (() => {});
  const queue = new TaskQueue(stores.tasks, () => afterCurrentRequest(() => wakeWorker(), SEND_AFTER_REQUEST_MAX_MS));
  const payloads = new HookPayloads({ projects: stores.projects, namespaces: stores.namespaces, users: stores.users, repositories: parts.repositories, externalUrl: parts.externalUrl });
  const deliveries = new HookDeliveries({
    hooks: stores.hooks,
    deliveries: stores.hookDeliveries,
    projects: stores.projects,
    namespaces: stores.namespaces,
    users: stores.users,
    members: stores.members,
    payloads,
    settings: parts.settings,
    queue,
    instanceUrl: parts.externalUrl,
    logger: parts.logger,
    timeoutMs: options.timeoutMs,
    retryBaseMs: options.retryBaseMs,
    alsoHeard: options.alsoHeard,
  });
  const worker = new TaskWorker(stores.tasks, {
    handlers: claimedFirst(deliveries.handlers(), options.onClaim),
    logger: parts.logger,
    concurrency: options.concurrency ?? HOOK_CONCURRENCY,
    pollIntervalMs: options.pollIntervalMs,
    owner: parts.owner,
  });
  if (options.wake === undefined) wakeWorker = () => worker.wake();
  return { deliveries, worker, payloads };
}

/** The task worker of this thread as a HookWorker. */
export function inProcessHookWorker(worker: TaskWorker): HookWorker {
  return {
    mode: 'in-process',
    get kinds() {
      return worker.kinds;
    },
    concurrency: worker.concurrency,
    get started() {
      return worker.started;
    },
    defersToRequests: false,
    start: () => worker.start(),
    wake: () => worker.wake(),
    stop: (graceMs) => worker.stop(graceMs),
    close: (graceMs) => worker.stop(graceMs),
  };
}

function claimedFirst(handlers: Readonly<Record<string, TaskHandler>>, onClaim: ((task: TaskRecord) => void) | undefined): Readonly<Record<string, TaskHandler>> {
  if (!onClaim) return handlers;
  return Object.fromEntries(Object.entries(handlers).map(([kind, handle]): [string, TaskHandler] => [kind, (task, context) => {
    onClaim(task);
    return handle(task, context);
  }]));
}
