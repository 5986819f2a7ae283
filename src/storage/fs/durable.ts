import { open } from 'node:fs/promises';

/** A new or renamed file's directory entry survives a crash only once the directory is flushed. */
export async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export function isMissingFile(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}

/** `reading`'s value, or `missing` when the file is not there; any other failure (EACCES, EISDIR, EIO) stays one. */
export async function unlessMissing<T>(reading: Promise<T>, missing: T): Promise<T> {
  try {
    return await reading;
  } catch (error) {
    if (isMissingFile(error)) return missing;
    throw error;
  }
}
