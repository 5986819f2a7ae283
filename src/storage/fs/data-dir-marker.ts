import { randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isMissingFile, syncDirectory } from './durable.ts';

/**
 * The file naming the installation a data directory belongs to: the database's installation
 * id, one line, written at the first start. A coordinator whose database names another
 * installation (or whose directory has no marker while its database has one) refuses to start.
 */
export const DATA_DIR_MARKER = 'gantry-installation';

export function dataDirMarkerPath(dataDir: string): string {
  return path.join(dataDir, DATA_DIR_MARKER);
}

/** The installation id the marker names, or undefined when there is no marker. */
export async function readDataDirMarker(dataDir: string): Promise<string | undefined> {
  try {
    const text = await readFile(dataDirMarkerPath(dataDir), 'utf8');
    return text.split('\n', 1)[0]!.trim();
  } catch (error) {
    if (isMissingFile(error)) return undefined;
    throw error;
  }
}

/** Writes the marker whole (a temporary file renamed into place) and flushes it. */
export async function writeDataDirMarker(dataDir: string, installationId: string): Promise<void> {
  const target = dataDirMarkerPath(dataDir);
  const temporary = `${target}.${randomUUID()}.partial`;
  try {
    await writeFile(temporary, `${installationId}\n`, { flush: true });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dataDir);
}
