import type { TokenRecord, TokenScope } from '../../../../storage/types-tokens.ts';
import type { AccessTokenView } from '../../../services/accounts/access-tokens.ts';
import type { ResourceTokenView } from '../../../services/accounts/resource-access-tokens.ts';

export interface AccessTokenJson {
  id: number;
  name: string;
  revoked: boolean;
  created_at: string;
  scopes: TokenScope[];
  user_id: number;
  active: boolean;
  expires_at: string | null;
  /** Only on the impersonation-token routes. */
  impersonation?: boolean;
  /** Only in the answer that creates the token: it is never shown again. */
  token?: string;
}

export function serializeAccessToken(token: TokenRecord, active: boolean, options: { impersonation?: boolean; secret?: string } = {}): AccessTokenJson {
  const json: AccessTokenJson = {
    id: token.id,
    name: token.name,
    revoked: token.revoked,
    created_at: token.created_at,
    scopes: token.scopes,
    user_id: token.user_id,
    active,
    expires_at: token.expires_at,
  };
  if (options.impersonation) json.impersonation = token.impersonation;
  if (options.secret !== undefined) json.token = options.secret;
  return json;
}

/** A token of the service's answer; `impersonation` on the impersonation-token routes. */
export function serializeAccessTokenView(view: AccessTokenView, options: { impersonation?: boolean } = {}): AccessTokenJson {
  return serializeAccessToken(view.token, view.active, { impersonation: options.impersonation, secret: view.secret });
}

/** GitLab's ResourceAccessToken entity: a personal token's fields, when it was last used (not tracked: null) and its bot's level. */
export interface ResourceAccessTokenJson extends AccessTokenJson {
  last_used_at: string | null;
  access_level: number | null;
}

export function serializeResourceAccessToken(view: ResourceTokenView): ResourceAccessTokenJson {
  const { token: secret, ...fields } = serializeAccessToken(view.token, view.active, { secret: view.secret });
  const json: ResourceAccessTokenJson = { ...fields, last_used_at: null, access_level: view.accessLevel };
  if (secret !== undefined) json.token = secret;
  return json;
}
