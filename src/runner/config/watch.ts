/**
 * Notices changes to config.toml: fs.watch on its directory (editors and `runner register`
 * replace the file by rename, which a watch on the file itself would miss) plus an mtime
 * poll every few seconds as gitlab-runner does, for file systems without inotify. Bursts of
 * events are debounced into one call.
 */
import { watch, watchFile, unwatchFile, type FSWatcher, type Stats } from 'node:fs';
import path from 'node:path';

export interface ConfigWatchOptions {
  file: string;
  onChange: () => void;
  /** Quiet time before onChange (default 250 ms). */
  debounceMs?: number;
  /** mtime poll interval (default 3000 ms). */
  pollMs?: number;
  /** fs.watch could not be set up or failed (the poll goes on). */
  onWatchError?: (error: Error) => void;
}

export class ConfigWatch {
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly poll: (current: Stats, previous: Stats) => void;
  private closed = false;

  constructor(private readonly options: ConfigWatchOptions) {
    const name = path.basename(options.file);
    this.poll = (current, previous) => {
      if (current.mtimeMs !== previous.mtimeMs || current.size !== previous.size || current.ino !== previous.ino) this.changed();
    };
    watchFile(options.file, { interval: options.pollMs ?? 3000, persistent: false }, this.poll);
    try {
      this.watcher = watch(path.dirname(options.file), { persistent: false }, (_event, filename) => {
        if (filename === null || filename.toString() === name) this.changed();
      });
      this.watcher.on('error', (error) => {
        options.onWatchError?.(error);
        this.watcher?.close();
        this.watcher = null;
      });
    } catch (error) {
      options.onWatchError?.(error as Error);
    }
  }

  private changed(): void {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.closed) this.options.onChange();
    }, this.options.debounceMs ?? 250);
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = null;
    unwatchFile(this.options.file, this.poll);
  }
}
