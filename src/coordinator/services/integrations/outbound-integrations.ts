import type { IntegrationRecord } from '../../../storage/types-integrations.ts';
import { chatC } from './chat-c.ts';
import { ircGateway } from './irc-gateway.ts';
import { issueTrackerB } from './jira.ts';
import { base, basicAuth, field, pushFlags, record, secret, text, type OutboundIntegration } from './outbound-types.ts';

/** GitLab sends an integration's hook as a service hook, whatever the event: the kind is in the body's `object_kind`. */
const HOOK_HEADERS = { 'content-type': 'application/json', 'x-gitlab-event': 'Service Hook' };

/** Merge statuses GitLab's Drone CI integration passes on (`merge_status` still to be checked). */
const UNCHECKED_MERGE_STATUSES = new Set(['unchecked', 'checking', 'cannot_be_merged_recheck', 'cannot_be_merged_rechecking']);

const droneHook = (ciUrl: string, namespacePath: string, projectPath: string, token: string): string =>
  `${base(ciUrl)}/hook?${new URLSearchParams({ owner: namespacePath, name: projectPath, access_token: token }).toString()}`;

/**
 * The integrations whose GitLab behaviour reaches a receiver the user configures, on a push.
 * The others either call a fixed vendor host (hosted CI, chat A and B, project management,
 * dependency monitor), only link (the issue trackers, external wiki) or answer inbound calls
 * (slash commands): docs/integrations.md.
 */
export const OUTBOUND_INTEGRATIONS: readonly OutboundIntegration[] = [
  {
    // GitLab's Drone CI: the push or merge request data POSTed to the server's hook, the token in the query.
    slug: 'ci-container',
    subscribed: pushFlags(true),
    hears: ['merge_requests_events'],
    async deliver(integration, notice, io) {
      const server = text(integration, 'ci_url');
      if (server === '') return;
      const url = droneHook(server, notice.namespacePath, notice.projectPath, secret(integration, 'token'));
      await io.send({ method: 'POST', url, headers: HOOK_HEADERS, body: JSON.stringify(notice.data), verifyTls: integration.properties.enable_ssl_verification !== false });
    },
    async deliverEvent(integration, notice, io) {
      const server = text(integration, 'ci_url');
      const attributes = record(notice.data.object_attributes);
      // GitLab's `merge_request_valid?`: an open request whose mergeability is still to be checked (just opened or pushed to).
      if (server === '' || field(attributes, 'state') !== 'opened' || !UNCHECKED_MERGE_STATUSES.has(field(attributes, 'merge_status'))) return;
      const url = droneHook(server, notice.namespacePath, notice.projectPath, secret(integration, 'token'));
      await io.send({ method: 'POST', url, headers: HOOK_HEADERS, body: JSON.stringify(notice.data), verifyTls: integration.properties.enable_ssl_verification !== false });
    },
  },
  {
    // GitLab's Packagist: the push or merge request data POSTed to update-package, the credentials in the query.
    slug: 'package-registry',
    subscribed: pushFlags(true),
    hears: ['merge_requests_events'],
    async deliver(integration, notice, io) {
      await io.send({ method: 'POST', url: packagistUrl(integration), headers: HOOK_HEADERS, body: JSON.stringify(notice.data) });
    },
    async deliverEvent(integration, notice, io) {
      await io.send({ method: 'POST', url: packagistUrl(integration), headers: HOOK_HEADERS, body: JSON.stringify(notice.data) });
    },
  },
  {
    // GitLab's Bamboo: a branch push asks the server to update and build the plan (GET, basic auth).
    slug: 'ci-server-a',
    subscribed: pushFlags(false),
    async deliver(integration, _notice, io) {
      const server = text(integration, 'ci_server_url');
      if (server === '') return;
      const username = text(integration, 'username');
      const query = new URLSearchParams({ buildKey: text(integration, 'build_key') });
      const headers: Record<string, string> = {};
      if (username !== '') {
        query.set('os_authType', 'basic');
        headers.authorization = basicAuth(username, secret(integration, 'password'));
      }
      await io.send({ method: 'GET', url: `${base(server)}/updateAndBuild.action?${query.toString()}`, headers });
    },
  },
  chatC,
  ircGateway,
  issueTrackerB,
];

function packagistUrl(integration: IntegrationRecord): string {
  const server = text(integration, 'server') || 'https://packagist.org';
  return `${base(server)}/api/update-package?${new URLSearchParams({ username: text(integration, 'username'), apiToken: secret(integration, 'token') }).toString()}`;
}

const BY_SLUG = new Map(OUTBOUND_INTEGRATIONS.map((integration) => [integration.slug, integration]));

export function outboundIntegration(slug: string): OutboundIntegration | undefined {
  return BY_SLUG.get(slug);
}
