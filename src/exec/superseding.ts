/**
 * A run superseded by a newer one, as GitLab's auto-cancel of redundant pipelines: each run
 * has its own coordinator, so runs of one working tree find each other through
 * `.gantry/runs/`: `<run>.json` says which process, ref and snapshot a running run is for. A
 * new run of the same ref for another snapshot (different files: the same files give the same
 * snapshot commit) marks each older live run with `<run>.superseded`, and that run then applies
 * GitLab's rule to its own pipeline: canceled while every job of it that has started is
 * `interruptible`. A run's files go when it ends; those of a run that died are removed by the
 * next run that finds them.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from '../shared/process-alive.ts';

export interface RunRecord {
  /** The process id and a random part: runs in one process are apart too. */
  id: string;
  pid: number;
  ref: string;
  /** The snapshot commit the run's pipeline is for. */
  sha: string;
  /** Epoch milliseconds. */
  startedAt: number;
}

/** How often a run looks for the mark of a newer one (a stat of one file). */
const WATCH_INTERVAL_MS = 200;

export class RunRegistry {
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly dir: string, readonly own: RunRecord) {}

  /** Records this process's run of `ref` at `sha`. */
  static async enter(dir: string, run: Omit<RunRecord, 'id' | 'pid' | 'startedAt'>): Promise<RunRegistry> {
    await mkdir(dir, { recursive: true });
    const own: RunRecord = { id: `${process.pid}-${randomBytes(4).toString('hex')}`, pid: process.pid, startedAt: Date.now(), ...run };
    await writeFile(path.join(dir, `${own.id}.json`), JSON.stringify(own));
    return new RunRegistry(dir, own);
  }

  /** Marks the older live runs of the same ref for another snapshot as superseded by this one; answers their records. */
  async supersedeOlder(): Promise<RunRecord[]> {
    const superseded: RunRecord[] = [];
    for (const other of await this.others()) {
      if (!processAlive(other.pid)) {
        await this.forget(other.id);
        continue;
      }
      if (other.ref !== this.own.ref || other.sha === this.own.sha || other.startedAt > this.own.startedAt) continue;
      await writeFile(path.join(this.dir, `${other.id}.superseded`), JSON.stringify(this.own));
      superseded.push(other);
    }
    return superseded;
  }

  /** Calls `superseded` once, with the newer run, when one marks this run. */
  watch(superseded: (by: RunRecord) => void): void {
    const mark = path.join(this.dir, `${this.own.id}.superseded`);
    this.timer = setInterval(() => {
      readFile(mark, 'utf8').then(
        (text) => {
          if (!this.timer) return;
          this.stopWatching();
          superseded(parseRecord(text) ?? { id: '', pid: 0, ref: this.own.ref, sha: '', startedAt: 0 });
        },
        () => undefined, // not marked (yet)
      );
    }, WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  async leave(): Promise<void> {
    this.stopWatching();
    await this.forget(this.own.id);
  }

  private stopWatching(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async others(): Promise<RunRecord[]> {
    const records: RunRecord[] = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith('.json') || name === `${this.own.id}.json`) continue;
      const record = parseRecord(await readFile(path.join(this.dir, name), 'utf8').catch(() => ''));
      if (record) records.push(record);
    }
    return records;
  }

  private async forget(id: string): Promise<void> {
    await Promise.all([rm(path.join(this.dir, `${id}.json`), { force: true }), rm(path.join(this.dir, `${id}.superseded`), { force: true })]);
  }
}

function parseRecord(text: string): RunRecord | null {
  try {
    const value = JSON.parse(text) as Partial<RunRecord>;
    if (typeof value.id !== 'string' || !/^\d+-[0-9a-f]+$/.test(value.id)) return null;
    if (typeof value.pid !== 'number' || typeof value.ref !== 'string' || typeof value.sha !== 'string' || typeof value.startedAt !== 'number') return null;
    return { id: value.id, pid: value.pid, ref: value.ref, sha: value.sha, startedAt: value.startedAt };
  } catch {
    return null;
  }
}
