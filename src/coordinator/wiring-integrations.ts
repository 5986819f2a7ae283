import type { CoordinatorContext } from './context.ts';
import { IntegrationsService } from './services/integrations/integrations.ts';
import { IntegrationMail } from './services/integrations/mail-tasks.ts';
import { createOutbox, fromAddress, type MailOptions } from './services/integrations/mail-outbox.ts';
import type { NewTask } from '../storage/types-tasks.ts';
import { TaskCommentsSettings } from './services/integrations/task-comments.ts';
import { OutboundDeliveries } from './services/integrations/outbound-deliveries.ts';

/** The integrations area: project integration settings. */
export function buildIntegrationServices(context: CoordinatorContext) {
  const { stores, lookup, permissions } = context;
  return {
    integrations: new IntegrationsService({ integrations: stores.integrations, lookup, permissions }),
  };
}

/** The mail of emails-on-push and pipelines-email (recorded as tasks; run by the CI task worker). */
export function buildIntegrationMail(context: CoordinatorContext, queue: { enqueue(task: NewTask): Promise<unknown> }, mail: MailOptions = {}): IntegrationMail {
  const { stores } = context;
  const outbox = createOutbox(mail, context.config.dataDir);
  return new IntegrationMail({
    integrations: stores.integrations,
    projects: stores.projects,
    namespaces: stores.namespaces,
    users: stores.users,
    pipelines: stores.pipelines,
    repositories: context.repositories,
    queue,
    outbox,
    from: fromAddress(mail, context.config.externalUrl),
    externalUrl: context.config.externalUrl,
    logger: context.logger,
  });
}

/** The task-comments integration's side of commit references (who comments on a push's issues). */
export function buildTaskComments(context: CoordinatorContext): TaskCommentsSettings {
  return new TaskCommentsSettings({ integrations: context.stores.integrations, tokens: context.stores.tokens, logger: context.logger });
}

/** The outbound HTTP integrations' requests (recorded as tasks on a push; run by the CI task worker). */
export function buildOutboundDeliveries(context: CoordinatorContext, queue: { enqueue(task: NewTask): Promise<unknown> }): OutboundDeliveries {
  const { stores } = context;
  return new OutboundDeliveries({
    integrations: stores.integrations,
    projects: stores.projects,
    namespaces: stores.namespaces,
    users: stores.users,
    repositories: context.repositories,
    settings: context.settings,
    queue,
    externalUrl: context.config.externalUrl,
    logger: context.logger,
  });
}
