import { randomUUID } from 'node:crypto';
import { access, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import { execa } from '#deps/execa';
import { heavyStream } from './heavy.ts';
import type { RepositoryAccess } from './reader.ts';
import { niced } from './run.ts';

/** What a snapshot holds: refs first, objects last (see snapshotStream). */
const REF_ENTRIES = ['HEAD', 'config', 'packed-refs', 'refs'];
/** A pack replaced by a concurrent gc between listing and linking makes the link fail: try again. */
const LINK_ATTEMPTS = 4;

/**
 * A streamed tar of the bare repository (GitLab's project snapshot): HEAD, config, refs and
 * objects, never buffered whole. A repository being written to still gives a consistent tar:
 * the refs are hard-linked into a staging directory first and the objects after them, and git
 * writes every object before the ref that names it, so each ref in the tar finds its objects.
 * Hard links (same file system, under the manager's temporary directory) cost no copy, and a
 * pack a concurrent gc removes stays readable through its link until the tar is written. The
 * staging directory is removed when the stream closes.
 */
export function snapshotStream(repository: RepositoryAccess, temporaryDirectory: string): Readable {
  return heavyStream(repository, 'snapshot', () => {
    const output = new PassThrough();
    const staging = path.join(temporaryDirectory, `snapshot-${randomUUID()}`);
    let tar: ReturnType<typeof execa> | undefined;
    const staged = stageSnapshot(repository.gitDir, staging);
    output.on('close', () => {
      tar?.kill('SIGKILL');
      // Removed once linking has stopped: a client gone mid-staging leaves nothing behind.
      const remove = (): Promise<void> => rm(staging, { recursive: true, force: true });
      void staged.then(remove, remove).catch(() => undefined);
    });
    void (async () => {
      await staged;
      const entries = await presentEntries(staging);
      if (output.destroyed) return;
      const [file, args] = niced(['tar', '-c', '-f', '-', '-C', staging, '--', ...entries]);
      const running = execa(file, args, { stdin: 'ignore', buffer: false, encoding: 'buffer', reject: false, stderr: 'ignore' });
      tar = running;
      running.stdout.pipe(output, { end: false });
      const result = await running;
      if (result.exitCode === 0) output.end();
      else output.destroy(new Error(`tar failed (${result.exitCode ?? result.signal ?? 'unknown'})`));
    })().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
    return output;
  });
}

/** Hard-links the refs, then the objects, into `staging`. */
async function stageSnapshot(gitDir: string, staging: string): Promise<void> {
  await mkdir(staging, { recursive: true });
  const refs = await existingEntries(gitDir, REF_ENTRIES);
  if (refs.length > 0) await linkInto(gitDir, refs, staging);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await linkInto(gitDir, ['objects'], staging);
      return;
    } catch (error) {
      if (attempt >= LINK_ATTEMPTS) throw error;
      await rm(path.join(staging, 'objects'), { recursive: true, force: true });
    }
  }
}

async function linkInto(gitDir: string, entries: readonly string[], staging: string): Promise<void> {
  const [file, args] = niced(['cp', '-a', '-l', '--', ...entries, staging]);
  const result = await execa(file, args, { cwd: gitDir, reject: false, stdin: 'ignore', stdout: 'ignore' });
  if (result.exitCode !== 0) throw new Error(`linking ${entries.join(', ')} for a snapshot failed: ${String(result.stderr).slice(0, 300)}`);
}

async function existingEntries(directory: string, names: readonly string[]): Promise<string[]> {
  const present = await Promise.all(names.map((name) => access(path.join(directory, name)).then(() => name, () => null)));
  return present.filter((name): name is string => name !== null);
}

function presentEntries(staging: string): Promise<string[]> {
  return existingEntries(staging, [...REF_ENTRIES, 'objects']);
}
