import { chatC } from './chat-c.ts';
import { ircGateway } from './irc-gateway.ts';
import { issueTrackerB } from './jira.ts';
import { base, basicAuth, pushFlags, secret, text, type OutboundIntegration, type PushNotice } from './outbound-types.ts';

export type { OutboundIntegration, PushNotice } from './outbound-types.ts';

const hookHeaders = (notice: PushNotice) => ({ 'content-type': 'application/json', 'x-gitlab-event': notice.kind === 'tag_push' ? 'Tag Push Hook' : 'Push Hook' });

/**
 * The integrations whose GitLab behaviour reaches a receiver the user configures, on a push.
 * The others either call a fixed vendor host (hosted CI, chat A and B, project management,
 * dependency monitor), only link (the issue trackers, external wiki) or answer inbound calls
 * (slash commands): docs/integrations.md.
 */
export const OUTBOUND_INTEGRATIONS: readonly OutboundIntegration[] = [
  {
    // GitLab's Drone CI: the push data POSTed to the server's hook, the token in the query.
    slug: 'ci-container',
    subscribed: pushFlags(true),
    async deliver(integration, notice, io) {
      const server = text(integration, 'ci_url');
      if (server === '') return;
      const query = new URLSearchParams({ owner: notice.namespacePath, name: notice.projectPath, access_token: secret(integration, 'token') });
      await io.send({
        method: 'POST',
        url: `${base(server)}/hook?${query.toString()}`,
        headers: hookHeaders(notice),
        body: JSON.stringify(notice.data),
        verifyTls: integration.properties.enable_ssl_verification !== false,
      });
    },
  },
  {
    // GitLab's Packagist: the push data POSTed to update-package, the credentials in the query.
    slug: 'package-registry',
    subscribed: pushFlags(true),
    async deliver(integration, notice, io) {
      const server = text(integration, 'server') || 'https://packagist.org';
      const query = new URLSearchParams({ username: text(integration, 'username'), apiToken: secret(integration, 'token') });
      await io.send({ method: 'POST', url: `${base(server)}/api/update-package?${query.toString()}`, headers: hookHeaders(notice), body: JSON.stringify(notice.data) });
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

const BY_SLUG = new Map(OUTBOUND_INTEGRATIONS.map((integration) => [integration.slug, integration]));

export function outboundIntegration(slug: string): OutboundIntegration | undefined {
  return BY_SLUG.get(slug);
}
