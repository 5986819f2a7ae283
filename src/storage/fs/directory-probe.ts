import { randomBytes } from 'node:crypto';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Which step of a directory probe failed, with the error it met. */
export type DirectoryProbe = { ok: true } | { ok: false; step: 'stat' | 'write' | 'read'; error: unknown };

/**
 * Whether `directory` is usable: it is a directory, a file can be written in it, and the same
 * bytes read back. The probe file (`.probe-<pid>-<random>`) is removed again, whatever happened.
 */
export async function probeDirectory(directory: string): Promise<DirectoryProbe> {
  try {
    if (!(await stat(directory)).isDirectory()) return { ok: false, step: 'stat', error: new Error(`${directory} is not a directory`) };
  } catch (error) {
    return { ok: false, step: 'stat', error };
  }
  const file = path.join(directory, `.probe-${process.pid}-${randomBytes(6).toString('hex')}`);
  const content = randomBytes(64).toString('hex');
  try {
    try {
      await writeFile(file, content, { flag: 'wx' });
    } catch (error) {
      return { ok: false, step: 'write', error };
    }
    try {
      if ((await readFile(file, 'utf8')) !== content) return { ok: false, step: 'read', error: new Error('the probe file read back differs') };
    } catch (error) {
      return { ok: false, step: 'read', error };
    }
    return { ok: true };
  } finally {
    await rm(file, { force: true }).catch(() => undefined);
  }
}
