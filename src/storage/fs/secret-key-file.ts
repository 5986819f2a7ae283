import { randomUUID } from 'node:crypto';
import { link, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile, syncDirectory } from './durable.ts';

/**
 * The coordinator's secret keys when none is configured: `<data dir>/secret.key`, one key a
 * line (the current key first, older ones after it), readable by its owner only. The first
 * start writes one new key; the coordinators of one database share the data directory, so
 * they share the file.
 */
export const SECRET_KEY_FILE = 'secret.key';

export function secretKeyFilePath(dataDir: string): string {
  return path.join(dataDir, SECRET_KEY_FILE);
}

/** The keys the file lists, or undefined when there is no file. */
export async function readSecretKeyFile(dataDir: string): Promise<string[] | undefined> {
  try {
    const text = await readFile(secretKeyFilePath(dataDir), 'utf8');
    return text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}

/** Whether others than the file's owner may read or write it (its mode beyond 0600 or 0400). */
export async function secretKeyFileIsShared(dataDir: string): Promise<boolean> {
  return ((await stat(secretKeyFilePath(dataDir))).mode & 0o077) !== 0;
}

/**
 * Writes `key` as the file, whole and mode 0600, unless a file is already there: then that
 * file's keys are answered (another process wrote it first).
 */
export async function createSecretKeyFile(dataDir: string, key: string): Promise<string[]> {
  const target = secretKeyFilePath(dataDir);
  const temporary = `${target}.${randomUUID()}.partial`;
  try {
    await writeFile(temporary, `${key}\n`, { mode: 0o600, flush: true });
    // A hard link fails when the target exists: never one key replacing another.
    await link(temporary, target);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
  } finally {
    await rm(temporary, { force: true });
  }
  await syncDirectory(dataDir);
  const keys = await readSecretKeyFile(dataDir);
  if (!keys || keys.length === 0) throw new Error(`${target} lists no key`);
  return keys;
}
