import { GantryError } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { createSecretKeyFile, readSecretKeyFile, secretKeyFilePath } from '../storage/fs/secret-key-file.ts';
import { generateSecretKey, parseSecretKey, SecretBox } from '../storage/secret-box.ts';

/**
 * The coordinator's secret keys: those given (CoordinatorOptions secretKeys, from the
 * `secret_keys` config key or GANTRY_SECRET_KEYS), else `<data dir>/secret.key`, written with
 * a new key on the first start. An in-memory database dies with its process: its key is
 * random and kept nowhere. Runs under the start-up lock, so coordinators sharing a data
 * directory write the file once.
 */
export async function coordinatorSecretBox(configured: readonly string[] | undefined, dataDir: string, databaseUrl: string, logger: Logger): Promise<SecretBox> {
  if (configured !== undefined && configured.length > 0) return new SecretBox(configured.map(parseSecretKey));
  if (databaseUrl === ':memory:') return SecretBox.ephemeral();
  let keys = await readSecretKeyFile(dataDir);
  if (keys === undefined) {
    keys = await createSecretKeyFile(dataDir, generateSecretKey());
    logger.info({ file: secretKeyFilePath(dataDir) }, 'wrote a new secret key for the secrets stored in the database: keep a copy of it with the backups, apart from them');
  }
  if (keys.length === 0) throw new GantryError('GANTRY_E_SECRET_KEY_INVALID', `${secretKeyFilePath(dataDir)} lists no key`);
  return new SecretBox(keys.map(parseSecretKey));
}
