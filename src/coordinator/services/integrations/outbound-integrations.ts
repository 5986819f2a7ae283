import type { IntegrationRecord } from '../../../storage/types-integrations.ts';
import type { OutboundRequest } from '../outbound/outbound-http.ts';

/** The event an outbound integration is told of (the only one for now: pushes of branches and tags). */
export interface PushNotice {
  kind: 'push' | 'tag_push';
  /** GitLab's push event data (push-data.ts). */
  data: Record<string, unknown>;
  /** `group/sub` and `project` of the pushed project (the drone hook's owner and name). */
  namespacePath: string;
  projectPath: string;
}

/** What one outbound integration sends for a push: the request, or null when it sends nothing. */
export interface OutboundIntegration {
  slug: string;
  /** Whether it hears of tag pushes too (each also needs its `tag_push_events` flag). */
  tags: boolean;
  request(integration: IntegrationRecord, notice: PushNotice): Omit<OutboundRequest, 'allowLocal' | 'timeoutMs'> | null;
}

const text = (integration: IntegrationRecord, field: string): string => {
  const value = integration.properties[field];
  return typeof value === 'string' ? value.trim() : '';
};

/** A secret as stored: spaces may be part of it. */
const secret = (integration: IntegrationRecord, field: string): string => {
  const value = integration.properties[field];
  return typeof value === 'string' ? value : '';
};

/** A base URL a path is added to: without its trailing slashes. */
const base = (url: string): string => url.replace(/\/+$/, '');

const hookHeaders = (notice: PushNotice) => ({ 'content-type': 'application/json', 'x-gitlab-event': notice.kind === 'tag_push' ? 'Tag Push Hook' : 'Push Hook' });

/**
 * The integrations whose GitLab behaviour is an HTTP request to a URL the user configures, on a
 * push. The others either call a fixed vendor host (hosted CI, chat A and B, project
 * management, dependency monitor), speak another protocol (irc-gateway), only link (the issue
 * trackers, external wiki) or answer inbound calls (slash commands): docs/integrations.md.
 */
export const OUTBOUND_INTEGRATIONS: readonly OutboundIntegration[] = [
  {
    // GitLab's Drone CI: the push data POSTed to the server's hook, the token in the query.
    slug: 'ci-container',
    tags: true,
    request(integration, notice) {
      const server = text(integration, 'ci_url');
      if (server === '') return null;
      const query = new URLSearchParams({ owner: notice.namespacePath, name: notice.projectPath, access_token: secret(integration, 'token') });
      return {
        method: 'POST',
        url: `${base(server)}/hook?${query.toString()}`,
        headers: hookHeaders(notice),
        body: JSON.stringify(notice.data),
        verifyTls: integration.properties.enable_ssl_verification !== false,
      };
    },
  },
  {
    // GitLab's Packagist: the push data POSTed to update-package, the credentials in the query.
    slug: 'package-registry',
    tags: true,
    request(integration, notice) {
      const server = text(integration, 'server') || 'https://packagist.org';
      const query = new URLSearchParams({ username: text(integration, 'username'), apiToken: secret(integration, 'token') });
      return { method: 'POST', url: `${base(server)}/api/update-package?${query.toString()}`, headers: hookHeaders(notice), body: JSON.stringify(notice.data) };
    },
  },
  {
    // GitLab's Bamboo: a branch push asks the server to update and build the plan (GET, basic auth).
    slug: 'ci-server-a',
    tags: false,
    request(integration) {
      const server = text(integration, 'ci_server_url');
      if (server === '') return null;
      const username = text(integration, 'username');
      const query = new URLSearchParams({ buildKey: text(integration, 'build_key') });
      const headers: Record<string, string> = {};
      if (username !== '') {
        query.set('os_authType', 'basic');
        headers.authorization = `Basic ${Buffer.from(`${username}:${secret(integration, 'password')}`).toString('base64')}`;
      }
      return { method: 'GET', url: `${base(server)}/updateAndBuild.action?${query.toString()}`, headers };
    },
  },
];

const BY_SLUG = new Map(OUTBOUND_INTEGRATIONS.map((integration) => [integration.slug, integration]));

export function outboundIntegration(slug: string): OutboundIntegration | undefined {
  return BY_SLUG.get(slug);
}
