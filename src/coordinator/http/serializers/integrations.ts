import { INTEGRATION_EVENT_FLAGS, type IntegrationEventFlag, type IntegrationPropertyValue } from '../../../storage/types-integrations.ts';
import { DEFAULT_EVENTS } from '../../services/integrations/catalogue.ts';
import { gitlabName, type IntegrationView } from '../../services/integrations/integrations.ts';

/** GitLab's Integration entity. */
export type IntegrationJson = {
  id: number | null;
  title: string;
  slug: string;
  created_at: string | null;
  updated_at: string | null;
  active: boolean;
  inherited: boolean;
  properties: Record<string, IntegrationPropertyValue | null>;
} & Record<IntegrationEventFlag, boolean>;

/**
 * An integration's settings. Secret fields (tokens, passwords, API keys) are left out of
 * `properties`, as GitLab leaves out password fields; a never-configured integration shows its
 * blank settings with `active: false` and no id. Under an alias path, GitLab's slug and field names.
 */
export function serializeIntegration(view: IntegrationView): IntegrationJson {
  const { definition, alias, record } = view;
  const properties: Record<string, IntegrationPropertyValue | null> = {};
  for (const field of definition.fields) {
    if (field.secret) continue;
    properties[gitlabName(definition, field.name, alias)] = record?.properties[field.name] ?? null;
  }
  const events = record?.events ?? DEFAULT_EVENTS;
  const flags = Object.fromEntries(INTEGRATION_EVENT_FLAGS.map((flag) => [flag, events[flag]])) as Record<IntegrationEventFlag, boolean>;
  return {
    id: record?.id ?? null,
    title: definition.title,
    slug: alias ? definition.gitlabSlug : definition.slug,
    created_at: record?.created_at ?? null,
    updated_at: record?.updated_at ?? null,
    active: record?.active ?? false,
    ...flags,
    inherited: false,
    properties,
  };
}
