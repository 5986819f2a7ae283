import type { Logger } from '../../../shared/logger.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { PipelineRecord, PipelinesStore } from '../../../storage/types-ci.ts';
import type { IntegrationRecord, IntegrationsStore } from '../../../storage/types-integrations.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UsersStore } from '../../../storage/types.ts';
import type { PushEvent } from '../events.ts';
import { projectFullPath } from '../namespaces/project-full-path.ts';
import type { TaskHandler } from '../task-queue.ts';
import type { MailOutbox } from './mail-outbox.ts';
import { addressList, buildPipelineEmail, MAILED_PIPELINE_STATUSES } from './pipeline-email.ts';
import { buildPushEmail } from './push-email.ts';

/** Task kind of an emails-on-push message (payload: PushEvent). */
export const EMAILS_ON_PUSH_TASK = 'integrations.emails-on-push';
/** Task kind of a pipelines-email message (payload: PipelineEmailTask). */
export const PIPELINE_EMAIL_TASK = 'integrations.pipelines-email';

interface PipelineEmailTask {
  pipelineId: number;
  status: string;
}

export interface IntegrationMailDeps {
  integrations: Pick<IntegrationsStore, 'find'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  users: Pick<UsersStore, 'findById'>;
  pipelines: Pick<PipelinesStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  queue: { enqueue(task: NewTask): Promise<unknown> };
  outbox: MailOutbox;
  /** The From address of every message. */
  from: string;
  externalUrl: string;
  logger: Logger;
}

const ZERO_SHA = '0'.repeat(40);

/**
 * The mail of emails-on-push and pipelines-email. A push or a finished pipeline records a
 * durable task when the project's integration is active and subscribed to the event; the
 * task builds the message from git and the stores and hands it to the outbox. Delivery never
 * runs in a request; a failed one is retried with the task queue's back-off.
 */
export class IntegrationMail {
  constructor(private readonly deps: IntegrationMailDeps) {}

  /** For `events.onPushRecorded`: runs before the push is acknowledged. */
  async recordPush(push: PushEvent): Promise<void> {
    if (!/^refs\/(heads|tags)\//.test(push.ref)) return;
    const integration = await this.active(push.project_id, 'emails-on-push');
    if (!integration) return;
    const subscribed = push.ref.startsWith('refs/tags/') ? integration.events.tag_push_events : integration.events.push_events;
    if (!subscribed) return;
    await this.deps.queue.enqueue({ kind: EMAILS_ON_PUSH_TASK, payload: push, maxAttempts: 10, dedupeKey: `${EMAILS_ON_PUSH_TASK}:${push.project_id}:${push.ref}:${push.after}` });
  }

  /** After a pipeline's status change committed: a success or failure may be mailed. */
  async recordPipelineFinished(pipeline: PipelineRecord): Promise<void> {
    if (!MAILED_PIPELINE_STATUSES.has(pipeline.status)) return;
    const integration = await this.active(pipeline.project_id, 'pipelines-email');
    if (!integration?.events.pipeline_events) return;
    if (pipeline.status === 'success' && integration.properties.notify_only_broken_pipelines === true) return;
    const payload: PipelineEmailTask = { pipelineId: pipeline.id, status: pipeline.status };
    await this.deps.queue.enqueue({ kind: PIPELINE_EMAIL_TASK, payload, maxAttempts: 10, dedupeKey: `${PIPELINE_EMAIL_TASK}:${pipeline.id}:${pipeline.status}:${pipeline.finished_at ?? ''}` });
  }

  handlers(): Record<string, TaskHandler> {
    return {
      [EMAILS_ON_PUSH_TASK]: async (task) => this.sendPushEmail(task.payload as PushEvent, `push-${task.id}`),
      [PIPELINE_EMAIL_TASK]: async (task) => this.sendPipelineEmail(task.payload as PipelineEmailTask, `pipeline-${task.id}`),
    };
  }

  private async sendPushEmail(push: PushEvent, key: string): Promise<void> {
    const integration = await this.active(push.project_id, 'emails-on-push');
    const project = await this.deps.projects.findById(push.project_id);
    if (!integration || !project || project.pending_delete || !(await this.deps.repositories.exists(project.id))) return;
    const recipients = addressList(String(integration.properties.recipients ?? ''));
    if (recipients.length === 0) return;
    const { projectPath, projectUrl } = await this.where(project);
    const pusher = push.user_id === null ? undefined : await this.deps.users.findById(push.user_id);
    const content = await buildPushEmail(this.deps.repositories.open(project.id), {
      projectPath,
      projectUrl,
      ref: push.ref,
      before: push.before,
      after: push.after,
      pusherName: pusher?.name ?? 'Someone',
      disableDiffs: integration.properties.disable_diffs === true,
    });
    const from = integration.properties.send_from_committer_email === true && content.headCommitter ? this.committerFrom(content.headCommitter) : this.deps.from;
    const headers = { 'X-GitLab-Project': projectPath, 'X-GitLab-Author': pusher?.username ?? '', ...(push.after === ZERO_SHA ? {} : { 'X-GitLab-Commit': push.after }) };
    await this.deps.outbox.deliver({ from, to: recipients, subject: content.subject, text: content.text, headers }, key);
  }

  private async sendPipelineEmail(task: PipelineEmailTask, key: string): Promise<void> {
    const pipeline = await this.deps.pipelines.findById(task.pipelineId);
    if (!pipeline) return;
    const integration = await this.active(pipeline.project_id, 'pipelines-email');
    const project = await this.deps.projects.findById(pipeline.project_id);
    if (!integration || !project || project.pending_delete) return;
    const user = pipeline.user_id === null ? undefined : await this.deps.users.findById(pipeline.user_id);
    const recipients = addressList(String(integration.properties.recipients ?? ''));
    if (integration.properties.add_pusher === true && user?.email) recipients.push(user.email);
    if (recipients.length === 0) return;
    const { projectPath, projectUrl } = await this.where(project);
    const commit = (await this.deps.repositories.exists(project.id)) ? await this.deps.repositories.open(project.id).commit(pipeline.sha) : null;
    const content = buildPipelineEmail({ pipeline: { ...pipeline, status: task.status as PipelineRecord['status'] }, projectPath, projectUrl, commitTitle: commit?.title ?? null, triggeredBy: user?.name ?? null });
    const headers = { 'X-GitLab-Project': projectPath, 'X-GitLab-Pipeline-Id': String(pipeline.id), 'X-GitLab-Pipeline-Status': task.status };
    await this.deps.outbox.deliver({ from: this.deps.from, to: [...new Set(recipients)], subject: content.subject, text: content.text, headers }, key);
  }

  private async active(projectId: number, slug: string): Promise<IntegrationRecord | undefined> {
    const integration = await this.deps.integrations.find(projectId, slug);
    return integration?.active ? integration : undefined;
  }

  private async where(project: ProjectRecord): Promise<{ projectPath: string; projectUrl: string }> {
    const projectPath = await projectFullPath(this.deps.namespaces, project);
    return { projectPath, projectUrl: `${this.deps.externalUrl}/${projectPath}` };
  }

  /** The committer's address as From only within the instance's own mail domain (as GitLab checks it), else the default. */
  private committerFrom(committer: { name: string; email: string }): string {
    const domain = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    return domain(committer.email) === domain(this.deps.from) ? `"${committer.name.replace(/["\\]/g, '')}" <${committer.email}>` : this.deps.from;
  }
}
