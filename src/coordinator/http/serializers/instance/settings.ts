import type { SettingsSnapshot } from '../../../services/instance/settings.ts';
import { INSTANCE_TOKEN_SETTING } from '../../../services/ci/runners/tokens.ts';
import { SETTINGS_SCHEMA } from '../../../services/instance/settings/schema.ts';

/** The one row's id, as GitLab shows it. */
const SETTINGS_ID = 1;

/** The settings object of `GET /application/settings`: id, every setting, the runner registration token, timestamps. */
export function serializeSettings(snapshot: SettingsSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = { id: SETTINGS_ID };
  for (const { name } of SETTINGS_SCHEMA) out[name] = snapshot.values[name] ?? null;
  // Read-only here: generated on first start, replaced by POST /runners/reset_registration_token.
  out[INSTANCE_TOKEN_SETTING] = snapshot.values[INSTANCE_TOKEN_SETTING] ?? null;
  out.created_at = snapshot.created_at;
  out.updated_at = snapshot.updated_at;
  return out;
}
