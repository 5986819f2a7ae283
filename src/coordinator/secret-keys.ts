import { GantryError } from '../shared/errors.ts';
import type { Logger } from '../shared/logger.ts';
import { createSecretKeyFile, readSecretKeyFile, secretKeyFileIsShared, secretKeyFilePath } from '../storage/fs/secret-key-file.ts';
import { generateSecretKey, parseSecretKey, SecretBox } from '../storage/secret-box.ts';

/**
 * The coordinator's secret keys: those given (CoordinatorOptions secretKeys, from the
 * `secret_keys` config key or GANTRY_SECRET_KEYS), else `<data dir>/secret.key`, written with
 * a new key on the first start. An in-memory database dies with its process: its key is
 * random and kept nowhere. Runs under the start-up lock, so coordinators sharing a data
 * directory write the file once.
 */
export async function coordinatorSecretBox(configured: readonly string[] | undefined, dataDir: string, databaseUrl: string, logger: Logger): Promise<SecretBox> {
  if (configured !== undefined && configured.length > 0) return boxOf(configured, 'the configured secret keys (secret_keys, GANTRY_SECRET_KEYS)');
  if (databaseUrl === ':memory:') return SecretBox.ephemeral();
  let keys = await readSecretKeyFile(dataDir);
  if (keys === undefined) {
    keys = await createSecretKeyFile(dataDir, generateSecretKey());
    logger.info({ file: secretKeyFilePath(dataDir) }, 'wrote a new secret key for the secrets stored in the database: back it up apart from the database backups');
  } else if (await secretKeyFileIsShared(dataDir)) {
    logger.warn({ file: secretKeyFilePath(dataDir) }, 'the secret key file may be read by others than its owner: chmod 600 it');
  }
  if (keys.length === 0) throw new GantryError('GANTRY_E_SECRET_KEY_INVALID', `${secretKeyFilePath(dataDir)} lists no key`);
  return boxOf(keys, secretKeyFilePath(dataDir));
}

function boxOf(keys: readonly string[], source: string): SecretBox {
  try {
    return new SecretBox(keys.map(parseSecretKey));
  } catch (error) {
    if (error instanceof GantryError) throw new GantryError(error.code, `${source}: ${error.message}`, error.details, { cause: error });
    throw error;
  }
}
