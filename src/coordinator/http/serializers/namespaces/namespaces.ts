import type { NamespaceRecord } from '../../../../storage/types.ts';
import { avatarUrl } from '../avatar-url.ts';

/** The Namespace object: a group or a user's personal namespace. */
export interface NamespaceJson {
  id: number;
  name: string;
  path: string;
  kind: 'user' | 'group';
  full_path: string;
  parent_id: number | null;
  avatar_url: string | null;
  web_url: string;
  /** Distinct members of the group and its subgroups; shown to those who administer the group. */
  members_count_with_descendants?: number;
}

/** A namespace as the caller may see it (the service's NamespaceView). */
export function serializeNamespaceView(view: { namespace: NamespaceRecord; membersCountWithDescendants: number | null }, externalUrl: string): NamespaceJson {
  return serializeNamespace(view.namespace, externalUrl, view.membersCountWithDescendants ?? undefined);
}

export function serializeNamespace(namespace: NamespaceRecord, externalUrl: string, membersCount?: number): NamespaceJson {
  const json: NamespaceJson = {
    id: namespace.id,
    name: namespace.name,
    path: namespace.path,
    kind: namespace.kind,
    full_path: namespace.full_path,
    parent_id: namespace.parent_id,
    avatar_url: avatarUrl(namespace.avatar_url, externalUrl),
    web_url: `${externalUrl}/${namespace.kind === 'group' ? 'groups/' : ''}${namespace.full_path}`,
  };
  if (membersCount !== undefined) json.members_count_with_descendants = membersCount;
  return json;
}
