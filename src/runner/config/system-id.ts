/**
 * The host's `system_id`, as gitlab-runner 16+ sends it so that one runner token can serve
 * many hosts (each a runner manager on the coordinator): `s_` and 12 hex characters derived
 * from the machine id, or `r_` and 12 random ones where there is none; kept in
 * `.runner_system_id` next to config.toml so it survives restarts.
 */
import { createHmac, randomInt } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const VALID = /^[sr]_[0-9a-zA-Z]{12}$/;
const MACHINE_ID_FILES = ['/etc/machine-id', '/var/lib/dbus/machine-id'];
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** The file that keeps the system id of the runner whose config is `configFile`. */
export function systemIdFile(configFile: string): string {
  return path.join(path.dirname(path.resolve(configFile)), '.runner_system_id');
}

/** The kept system id, else a new one (kept when `configFile` is given and its directory writable). */
export async function loadSystemId(configFile?: string): Promise<string> {
  const file = configFile === undefined ? undefined : systemIdFile(configFile);
  if (file) {
    const kept = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (VALID.test(kept)) return kept;
  }
  const fresh = await newSystemId();
  if (file) await writeFile(file, fresh, { mode: 0o600 }).catch(() => undefined);
  return fresh;
}

/** `s_` + 12 hex of an HMAC of the machine id (stable per host, not revealing it), else `r_` + 12 random characters. */
export async function newSystemId(machineIdFiles: readonly string[] = MACHINE_ID_FILES): Promise<string> {
  for (const file of machineIdFiles) {
    const machineId = (await readFile(file, 'utf8').catch(() => '')).trim();
    if (machineId !== '') return `s_${createHmac('sha256', machineId).update('gantry-runner').digest('hex').slice(0, 12)}`;
  }
  return `r_${Array.from({ length: 12 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')}`;
}
