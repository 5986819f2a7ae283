import type { SettingsStore, Visibility } from '../../storage/types.ts';
import { parseSettingChanges, type SettingValue } from './settings/parse.ts';
import { defaultSettingValues, type SchemaSettings } from './settings/schema.ts';
import { validateSettings } from './settings/validate.ts';

/**
 * Instance-wide application settings. The stored document holds only what an administrator
 * changed; reads merge it over the defaults of the schema table (settings/schema.ts).
 */
export type ApplicationSettings = Omit<
  SchemaSettings,
  | 'default_project_visibility'
  | 'default_group_visibility'
  | 'default_snippet_visibility'
  | 'restricted_visibility_levels'
  | 'default_branch_protection'
  | 'enabled_git_access_protocol'
> & {
  default_project_visibility: Visibility;
  default_group_visibility: Visibility;
  default_snippet_visibility: Visibility;
  restricted_visibility_levels: Visibility[] | null;
  default_branch_protection: 0 | 1 | 2;
  /** null allows both. */
  enabled_git_access_protocol: 'ssh' | 'http' | null;
  [key: string]: unknown;
};

export const DEFAULT_SETTINGS: ApplicationSettings = defaultSettingValues() as ApplicationSettings;

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
    const values = { ...defaultSettingValues(), ...row.settings } as ApplicationSettings;
    this.cached = { values, created_at: row.created_at, updated_at: row.updated_at };
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

  /**
   * Applies a `PUT /application/settings` request: typed per parameter, validated on the
   * merged result (400 on any problem, nothing stored), then saved.
   */
  async change(values: Readonly<Record<string, SettingValue | undefined>>): Promise<SettingsSnapshot> {
    const changes = parseSettingChanges(values);
    const stored = (await this.store.load())?.settings ?? {};
    validateSettings({ changes, stored, merged: { ...defaultSettingValues(), ...stored, ...changes } });
    return this.update(changes);
  }

  /** Whether a non-administrator may use this visibility level. */
  async isVisibilityRestricted(visibility: Visibility): Promise<boolean> {
    const restricted = (await this.values()).restricted_visibility_levels;
    return restricted !== null && restricted.includes(visibility);
  }
}
