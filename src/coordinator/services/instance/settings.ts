import type { ChangeSignal } from '../../../storage/types-notifications.ts';
import type { SettingsRow, SettingsStore, Visibility } from '../../../storage/types.ts';
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

/**
 * How long a read may answer from memory. Another coordinator's change is announced at once
 * (`changes`); this age is the backstop for an announcement lost while the listening
 * connection was down, and keeps every change visible everywhere within 2 s.
 */
const SETTINGS_MAX_AGE_MS = 1_000;

export interface SettingsServiceOptions {
  maxAgeMs?: number;
  clock?: () => number;
  /** Announces this coordinator's changes to the others, and theirs to this one (PostgreSQL LISTEN/NOTIFY). */
  changes?: ChangeSignal;
}

export class SettingsService {
  private cached: { snapshot: SettingsSnapshot; loadedAt: number } | undefined;
  /** The last copy read, answered while the database cannot be read. */
  private lastKnown: SettingsSnapshot | undefined;
  /** Moves on every invalidation: a load that began before one is not kept. */
  private generation = 0;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;
  private readonly changes: ChangeSignal | undefined;

  constructor(
    private readonly store: SettingsStore,
    options: SettingsServiceOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? SETTINGS_MAX_AGE_MS;
    this.clock = options.clock ?? Date.now;
    this.changes = options.changes;
    this.changes?.subscribe(() => this.forget());
  }

  /** Current settings; kept in memory for up to a second, forgotten on every change announced by any coordinator. */
  async current(): Promise<SettingsSnapshot> {
    const now = this.clock();
    if (this.cached && now - this.cached.loadedAt < this.maxAgeMs) return this.cached.snapshot;
    const generation = this.generation;
    let row: SettingsRow | undefined;
    try {
      row = (await this.store.load()) ?? (await this.store.save({}, new Date(now).toISOString()));
    } catch (error) {
      // The database is unreachable: whatever else needs it fails on its own, but what only
      // needs the settings (the metrics endpoint, say) goes on with the last copy read.
      if (this.lastKnown) return this.lastKnown;
      throw error;
    }
    const values = { ...defaultSettingValues(), ...row.settings } as ApplicationSettings;
    const snapshot = { values, created_at: row.created_at, updated_at: row.updated_at };
    this.lastKnown = snapshot;
    if (generation === this.generation) this.cached = { snapshot, loadedAt: now };
    return snapshot;
  }

  /** The settings in memory while they are fresh, else undefined (a caller that can answer at once). */
  peek(): ApplicationSettings | undefined {
    return this.cached && this.clock() - this.cached.loadedAt < this.maxAgeMs ? this.cached.snapshot.values : undefined;
  }

  async values(): Promise<ApplicationSettings> {
    return (await this.current()).values;
  }

  /** Stores the given changes over the current document. Validation happens before this call. */
  async update(changes: Record<string, unknown>): Promise<SettingsSnapshot> {
    await this.store.merge(changes, new Date().toISOString());
    this.forget();
    this.changes?.announce();
    return this.current();
  }

  private forget(): void {
    this.generation += 1;
    this.cached = undefined;
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
