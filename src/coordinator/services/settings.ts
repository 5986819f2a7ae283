import type { SettingsStore, Visibility } from '../../storage/types.ts';

/**
 * Instance-wide application settings. The stored document holds only what an administrator
 * changed; reads merge it over the defaults.
 */
export interface ApplicationSettings {
  default_projects_limit: number;
  default_project_visibility: Visibility;
  default_group_visibility: Visibility;
  default_snippet_visibility: Visibility;
  restricted_visibility_levels: Visibility[] | null;
  default_branch_protection: 0 | 1 | 2;
  signup_enabled: boolean;
  rsa_key_restriction: number;
  dsa_key_restriction: number;
  ecdsa_key_restriction: number;
  ed25519_key_restriction: number;
  [key: string]: unknown;
}

export const DEFAULT_SETTINGS: ApplicationSettings = {
  default_projects_limit: 100000,
  default_project_visibility: 'private',
  default_group_visibility: 'private',
  default_snippet_visibility: 'private',
  restricted_visibility_levels: null,
  default_branch_protection: 2,
  signup_enabled: true,
  rsa_key_restriction: 0,
  dsa_key_restriction: 0,
  ecdsa_key_restriction: 0,
  ed25519_key_restriction: 0,
};

export interface SettingsSnapshot {
  values: ApplicationSettings;
  created_at: string;
  updated_at: string;
}

export class SettingsService {
  private cached: SettingsSnapshot | undefined;

  constructor(private readonly store: SettingsStore) {}

  /** Current settings; cached in memory, refreshed on every write through this service. */
  async current(): Promise<SettingsSnapshot> {
    if (this.cached) return this.cached;
    let row = await this.store.load();
    if (!row) row = await this.store.save({}, new Date().toISOString());
    this.cached = { values: { ...DEFAULT_SETTINGS, ...row.settings }, created_at: row.created_at, updated_at: row.updated_at };
    return this.cached;
  }

  async values(): Promise<ApplicationSettings> {
    return (await this.current()).values;
  }

  /** Stores the given changes over the current document. Validation happens before this call. */
  async update(changes: Record<string, unknown>): Promise<SettingsSnapshot> {
    const stored = (await this.store.load())?.settings ?? {};
    await this.store.save({ ...stored, ...changes }, new Date().toISOString());
    this.cached = undefined;
    return this.current();
  }

  /** Whether a non-administrator may use this visibility level. */
  async isVisibilityRestricted(visibility: Visibility): Promise<boolean> {
    const restricted = (await this.values()).restricted_visibility_levels;
    return restricted !== null && restricted.includes(visibility);
  }
}
