import type { IntegrationEventFlag, IntegrationRecord } from '../../../storage/types-integrations.ts';
import type { OutboundRequest, OutboundResponse } from '../outbound/outbound-http.ts';
import type { PushData } from './push-data.ts';

/** The event an outbound integration is told of (the only one for now: pushes of branches and tags). */
export interface PushNotice {
  kind: 'push' | 'tag_push';
  /** GitLab's push event data (push-data.ts). */
  data: PushData;
  /** `group/sub` and `project` of the pushed project (the drone hook's owner and name). */
  namespacePath: string;
  projectPath: string;
  /** GitLab's `name_with_namespace`: `Group / Sub / Project`. */
  projectFullName: string;
  externalUrl: string;
  /** The first parent of a commit of the push, or null (irker's compare link of a new branch). */
  parentOf(id: string): Promise<string | null>;
}

/** An event other than a push (merge request, issue, note, pipeline), with the webhooks' payload of it. */
export interface ProjectEventNotice {
  flag: IntegrationEventFlag;
  /** GitLab's hook data of the event (`object_kind`, `object_attributes`, `user` …). */
  data: Record<string, unknown>;
  namespacePath: string;
  projectPath: string;
  projectFullName: string;
  projectUrl: string;
  defaultBranch: string | null;
  externalUrl: string;
}

export type IntegrationRequest = Omit<OutboundRequest, 'allowLocal' | 'timeoutMs'>;

/** How an integration reaches its receiver, under the settings' rules (local addresses, time limit). */
export interface OutboundIo {
  /**
   * Sends one request: the answer when it is a 2xx; null (logged with the host and status) when
   * the receiver refused for good (another 4xx, a redirect); throws when a retry may help (no
   * answer, a time-out, a 5xx, 408, 425, 429), which fails the task's attempt.
   */
  send(request: IntegrationRequest): Promise<OutboundResponse | null>;
  /** Writes lines to a TCP listener and closes the connection; throws when it cannot. */
  sendLines(host: string, port: number, lines: readonly string[]): Promise<void>;
}

/** What one outbound integration does about a push. */
export interface OutboundIntegration {
  slug: string;
  /** Whether the push concerns it: its event flags (a tag push reaches only those that take tags). */
  subscribed(integration: IntegrationRecord, tag: boolean): boolean;
  deliver(integration: IntegrationRecord, notice: PushNotice, io: OutboundIo): Promise<void>;
  /** The event flags beyond pushes it takes in GitLab (each also needs the flag on). */
  hears?: readonly IntegrationEventFlag[];
  deliverEvent?(integration: IntegrationRecord, notice: ProjectEventNotice, io: OutboundIo): Promise<void>;
}

/** A nested object of hook data, or an empty one. */
export function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export const field = (object: Record<string, unknown>, name: string): string => {
  const value = object[name];
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
};

/** GitLab's push integrations: `push_events` for branches, `tag_push_events` for tags when they take tags. */
export function pushFlags(tags: boolean): OutboundIntegration['subscribed'] {
  return (integration, tag) => (tag ? tags && integration.events.tag_push_events : integration.events.push_events);
}

export const text = (integration: IntegrationRecord, field: string): string => {
  const value = integration.properties[field];
  return typeof value === 'string' ? value.trim() : '';
};

/** A secret as stored: spaces may be part of it. */
export const secret = (integration: IntegrationRecord, field: string): string => {
  const value = integration.properties[field];
  return typeof value === 'string' ? value : '';
};

/** A base URL a path is added to: without its trailing slashes. */
export const base = (url: string): string => url.replace(/\/+$/, '');

export const basicAuth = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** Text for an HTML message. */
export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] ?? character);

export const ZERO_SHA = '0'.repeat(40);
