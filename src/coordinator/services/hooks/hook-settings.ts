import { isIP } from 'node:net';
import { GantryError } from '../../../shared/errors.ts';
import { HOOK_EVENT_FLAGS, type BranchFilterStrategy, type HookEventFlag, type HookKind, type HookRecord, type HookSettings } from '../../../storage/types-hooks.ts';
import type { SettingsService } from '../instance/settings.ts';
import { isLocalAddress } from '../outbound/local-addresses.ts';
import { validBranchFilter } from './branch-filter.ts';

/** POST and PUT parameters as the routes read them (system hooks take a subset). */
export type HookParams = Partial<Record<HookEventFlag, boolean>> & {
  url?: string;
  name?: string;
  description?: string;
  token?: string;
  enable_ssl_verification?: boolean;
  push_events_branch_filter?: string;
  branch_filter_strategy?: BranchFilterStrategy;
  repository_update_events?: boolean;
  subgroup_events?: boolean;
  member_events?: boolean;
};

/** URLs longer than this are refused (GitLab's web_hooks.url validation is 5,000 at most). */
export const HOOK_URL_MAX_LENGTH = 5000;

/** A new hook's subscriptions: pushes only, as GitLab's column defaults have it. */
const DEFAULT_EVENTS = Object.fromEntries(HOOK_EVENT_FLAGS.map((flag) => [flag, flag === 'push_events'])) as Record<HookEventFlag, boolean>;

/** Whether local addresses may be hooked: system hooks have their own setting (GitLab's default: allowed). */
export async function localRequestsAllowed(settings: Pick<SettingsService, 'values'>, kind: HookKind): Promise<boolean> {
  const values = await settings.values();
  return kind === 'system' ? values.allow_local_requests_from_system_hooks !== false : values.allow_local_requests_from_web_hooks_and_services === true;
}

/**
 * The settings a POST or PUT leaves on a hook: the parameters given over the existing ones (or
 * GitLab's defaults), the URL and branch filter checked.
 */
export async function hookSettings(existing: HookRecord | undefined, params: HookParams, allowLocal: boolean, groupHook = false): Promise<HookSettings> {
  const url = params.url ?? existing?.url ?? '';
  if (params.url !== undefined) checkHookUrl(params.url, allowLocal);
  const strategy = params.branch_filter_strategy ?? existing?.branch_filter_strategy ?? 'wildcard';
  const filter = params.push_events_branch_filter ?? existing?.push_events_branch_filter ?? null;
  const refusal = await validBranchFilter(strategy, filter);
  if (refusal !== undefined) throw new GantryError('GANTRY_E_HOOK_INVALID', 'Invalid branch filter given', { reason: refusal });
  const events = { ...(existing?.events ?? DEFAULT_EVENTS) };
  for (const flag of HOOK_EVENT_FLAGS) {
    const value = params[flag];
    if (value !== undefined) events[flag] = value;
  }
  return {
    url,
    name: params.name ?? existing?.name ?? '',
    description: params.description ?? existing?.description ?? '',
    token: params.token === undefined ? (existing?.token ?? null) : params.token === '' ? null : params.token,
    enable_ssl_verification: params.enable_ssl_verification ?? existing?.enable_ssl_verification ?? true,
    push_events_branch_filter: filter === '' ? null : filter,
    branch_filter_strategy: strategy,
    events,
    // GitLab's column default is on; only system hooks send this event.
    repository_update_events: params.repository_update_events ?? existing?.repository_update_events ?? true,
    // Group hooks only: the other kinds ignore them.
    subgroup_events: groupHook && (params.subgroup_events ?? existing?.subgroup_events ?? false),
    member_events: groupHook && (params.member_events ?? existing?.member_events ?? false),
  };
}

/**
 * GitLab's AddressableUrlValidator at save time: an http(s) URL, without blanks, and, unless
 * local requests are allowed, not `localhost` nor a local IP literal (names are resolved and
 * checked again at each delivery by the outbound client).
 */
export function checkHookUrl(raw: string, allowLocal: boolean): void {
  const invalid = (): GantryError => new GantryError('GANTRY_E_HOOK_INVALID', 'Invalid url given');
  if (raw.length > HOOK_URL_MAX_LENGTH || /\s/.test(raw)) throw invalid();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid();
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') throw invalid();
  if (allowLocal) return;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && isLocalAddress(host))) throw invalid();
}
