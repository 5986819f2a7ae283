import { accessDenied } from '../../../shared/errors.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { Permissions } from '../access/permissions.ts';
import type { SettingValue } from './settings/parse.ts';
import type { SettingsService, SettingsSnapshot } from './settings.ts';

export interface ApplicationSettingsServiceDeps {
  settings: Pick<SettingsService, 'current' | 'change'>;
  permissions: Pick<Permissions, 'isAdministrator'>;
}

/** `GET|PUT /application/settings`: the instance settings, for administrators only. */
export class ApplicationSettingsService {
  constructor(private readonly deps: ApplicationSettingsServiceDeps) {}

  read(actor: UserRecord): Promise<SettingsSnapshot> {
    this.requireAdministrator(actor);
    return this.deps.settings.current();
  }

  /** Typed per setting, validated on the merged result (400 on any problem, nothing stored), then saved. */
  change(actor: UserRecord, values: Readonly<Record<string, SettingValue | undefined>>): Promise<SettingsSnapshot> {
    this.requireAdministrator(actor);
    return this.deps.settings.change(values);
  }

  private requireAdministrator(actor: UserRecord): void {
    if (!this.deps.permissions.isAdministrator(actor)) throw accessDenied();
  }
}
