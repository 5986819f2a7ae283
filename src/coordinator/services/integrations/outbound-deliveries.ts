import type { Logger } from '../../../shared/logger.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { HookEventFlag } from '../../../storage/types-hooks.ts';
import { INTEGRATION_EVENT_FLAGS, type IntegrationEventFlag, type IntegrationRecord, type IntegrationsStore } from '../../../storage/types-integrations.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import type { NamespacesStore, ProjectsStore, UsersStore } from '../../../storage/types.ts';
import type { PushEvent } from '../events.ts';
import { projectFullPathIn } from '../namespaces/project-full-path.ts';
import type { SettingsService } from '../instance/settings.ts';
import { sendOutbound, type OutboundRequest, type OutboundResponse } from '../outbound/outbound-http.ts';
import { sendOutboundLines, type OutboundLines } from '../outbound/outbound-tcp.ts';
import type { TaskHandler } from '../task-queue.ts';
import { outboundIntegration } from './outbound-integrations.ts';
import type { IntegrationRequest, OutboundIo, ProjectEventNotice, PushNotice } from './outbound-types.ts';
import { buildPushData } from './push-data.ts';

/** Task kind of one integration's request about one push (payload: OutboundDeliveryTask). */
export const DELIVER_TASK = 'integrations.deliver';
/** Attempts of one delivery: the first and four retries, after the task queue's back-off (1, 2, 4, 8 s by default). */
export const DELIVERY_MAX_ATTEMPTS = 5;

/** No secret in here: the request is built from the integration's row when it is sent. */
type OutboundDeliveryTask = { slug: string; push: PushEvent } | { slug: string; event: { project_id: number; flag: IntegrationEventFlag; data: Record<string, unknown> } };

const isIntegrationFlag = (flag: string): flag is IntegrationEventFlag => (INTEGRATION_EVENT_FLAGS as readonly string[]).includes(flag);

export interface OutboundDeliveriesDeps {
  integrations: Pick<IntegrationsStore, 'find' | 'listActive'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  settings: Pick<SettingsService, 'values'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
  externalUrl: string;
  logger: Logger;
  /** One request's time limit (default 10 s). */
  timeoutMs?: number;
  /** The client (tests count calls through it); default sendOutbound. */
  send?: (request: OutboundRequest) => Promise<OutboundResponse>;
  /** The TCP client (irker); default sendOutboundLines. */
  sendLines?: (request: OutboundLines) => Promise<void>;
}

/** Answers a retry may change: the receiver's own trouble, time-outs, rate limits. Other 4xx answers are final. */
const RETRIED_STATUSES = new Set([408, 425, 429]);

/**
 * The outbound integrations (outbound-integrations.ts): a push records one durable task per
 * active integration subscribed to it, before the push is acknowledged; each task reaches its
 * receiver on its own, so one slow or failing receiver never holds up another, and never a
 * request of ours. A failed attempt (no answer, a time-out, a 5xx) is retried with the task
 * queue's back-off; an integration that sends several requests makes them safe to repeat.
 */
export class OutboundDeliveries {
  constructor(private readonly deps: OutboundDeliveriesDeps) {}

  /** For `events.onPushRecorded`. */
  async recordPush(push: PushEvent): Promise<void> {
    if (!/^refs\/(heads|tags)\//.test(push.ref)) return;
    const tag = push.ref.startsWith('refs/tags/');
    const active = await this.deps.integrations.listActive(push.project_id);
    for (const integration of active) {
      const outbound = outboundIntegration(integration.slug);
      if (!outbound?.subscribed(integration, tag)) continue;
      const payload: OutboundDeliveryTask = { slug: integration.slug, push };
      await this.deps.queue.enqueue({
        kind: DELIVER_TASK, payload, maxAttempts: DELIVERY_MAX_ATTEMPTS, dedupeKey: `${DELIVER_TASK}:${integration.slug}:${push.project_id}:${push.ref}:${push.after}`,
      });
    }
  }

  /** Whether an active integration takes this event (merge request, issue, note, pipeline …): the hooks' event recorder asks before building its payload. */
  async wants(projectId: number, flag: HookEventFlag): Promise<boolean> {
    return (await this.listeners(projectId, flag)).length > 0;
  }

  /** One task per active integration that takes the event, with the payload built once for the hooks and them. */
  async record(projectId: number, flag: HookEventFlag, data: Record<string, unknown>): Promise<void> {
    if (!isIntegrationFlag(flag)) return;
    for (const integration of await this.listeners(projectId, flag)) {
      const payload: OutboundDeliveryTask = { slug: integration.slug, event: { project_id: projectId, flag, data } };
      await this.deps.queue.enqueue({ kind: DELIVER_TASK, payload, maxAttempts: DELIVERY_MAX_ATTEMPTS });
    }
  }

  private async listeners(projectId: number, flag: HookEventFlag): Promise<IntegrationRecord[]> {
    if (!isIntegrationFlag(flag)) return [];
    const active = await this.deps.integrations.listActive(projectId);
    return active.filter((integration) => hearsEvent(integration, flag));
  }

  handlers(): Record<string, TaskHandler> {
    return {
      [DELIVER_TASK]: async (task) => {
        const payload = task.payload as OutboundDeliveryTask;
        await ('push' in payload ? this.deliver(payload.slug, payload.push) : this.deliverEvent(payload.slug, payload.event));
      },
    };
  }

  private async deliverEvent(slug: string, event: { project_id: number; flag: IntegrationEventFlag; data: Record<string, unknown> }): Promise<void> {
    const outbound = outboundIntegration(slug);
    const integration = await this.deps.integrations.find(event.project_id, slug);
    const project = await this.deps.projects.findById(event.project_id);
    // Switched off, removed or unsubscribed since the event: nothing to send.
    if (!outbound?.deliverEvent || !integration?.active || !hearsEvent(integration, event.flag) || !project || project.pending_delete) return;
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    const projectPath = projectFullPathIn(namespace, project);
    const notice: ProjectEventNotice = {
      flag: event.flag,
      data: event.data,
      namespacePath: namespace?.full_path ?? '',
      projectPath: project.path,
      projectFullName: namespace ? `${namespace.full_name} / ${project.name}` : project.name,
      projectUrl: `${this.deps.externalUrl}/${projectPath}`,
      defaultBranch: project.default_branch,
      externalUrl: this.deps.externalUrl,
    };
    const allowLocal = (await this.deps.settings.values()).allow_local_requests_from_web_hooks_and_services === true;
    await outbound.deliverEvent(integration, notice, this.io(slug, project.id, allowLocal));
  }

  private async deliver(slug: string, push: PushEvent): Promise<void> {
    const outbound = outboundIntegration(slug);
    const integration = await this.deps.integrations.find(push.project_id, slug);
    const project = await this.deps.projects.findById(push.project_id);
    // Switched off, removed or unsubscribed since the push: nothing to send.
    if (!outbound || !integration?.active || !project || project.pending_delete) return;
    const tag = push.ref.startsWith('refs/tags/');
    if (!outbound.subscribed(integration, tag) || !(await this.deps.repositories.exists(project.id))) return;
    const namespace = await this.deps.namespaces.findById(project.namespace_id);
    const namespacePath = namespace?.full_path ?? '';
    const projectPath = projectFullPathIn(namespace, project);
    const pusher = push.user_id === null ? null : ((await this.deps.users.findById(push.user_id)) ?? null);
    const repository = this.deps.repositories.open(project.id);
    const data = await buildPushData(repository, {
      project, projectPath, namespaceName: namespace?.name ?? '', externalUrl: this.deps.externalUrl, ref: push.ref, before: push.before, after: push.after, pusher,
    });
    const notice: PushNotice = {
      kind: tag ? 'tag_push' : 'push',
      data,
      namespacePath,
      projectPath: project.path,
      projectFullName: namespace ? `${namespace.full_name} / ${project.name}` : project.name,
      externalUrl: this.deps.externalUrl,
      parentOf: async (id) => (await repository.commit(id))?.parent_ids[0] ?? null,
    };
    const allowLocal = (await this.deps.settings.values()).allow_local_requests_from_web_hooks_and_services === true;
    await outbound.deliver(integration, notice, this.io(slug, project.id, allowLocal));
  }

  private io(slug: string, projectId: number, allowLocal: boolean): OutboundIo {
    const send = this.deps.send ?? sendOutbound;
    const sendLines = this.deps.sendLines ?? sendOutboundLines;
    const timeoutMs = this.deps.timeoutMs;
    return {
      send: async (request: IntegrationRequest) => {
        const response = await send({ ...request, allowLocal, timeoutMs });
        if (response.status >= 200 && response.status < 300) return response;
        const host = new URL(request.url).host;
        if (response.status >= 500 || RETRIED_STATUSES.has(response.status)) throw new Error(`${slug}: ${host} answered ${response.status}`);
        this.deps.logger.warn({ project: projectId, integration: slug, host, status: response.status }, 'integration request refused by its receiver; not retried');
        return null;
      },
      sendLines: (host, port, lines) => sendLines({ host, port, lines, allowLocal, timeoutMs }),
    };
  }
}

function hearsEvent(integration: IntegrationRecord, flag: IntegrationEventFlag): boolean {
  return integration.events[flag] && outboundIntegration(integration.slug)?.hears?.includes(flag) === true;
}
