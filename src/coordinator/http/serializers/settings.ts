import type { SettingsSnapshot } from '../../services/settings.ts';
import { SETTINGS_SCHEMA } from '../../services/settings/schema.ts';

/** The one row's id, as GitLab shows it. */
const SETTINGS_ID = 1;

/** The settings object of `GET /application/settings`: id, every setting, timestamps. */
export function serializeSettings(snapshot: SettingsSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = { id: SETTINGS_ID };
  for (const { name } of SETTINGS_SCHEMA) out[name] = snapshot.values[name] ?? null;
  out.created_at = snapshot.created_at;
  out.updated_at = snapshot.updated_at;
  return out;
}
