import pg from 'pg';
import type { JobQueueSignal } from '../types-queue-signal.ts';

const CHANNEL = 'gantry_job_queue';
const RECONNECT_MIN_MS = 200;
const RECONNECT_MAX_MS = 5_000;

type Listener = Parameters<JobQueueSignal['subscribe']>[0];

/** The signal for a database URL: LISTEN/NOTIFY on PostgreSQL, nothing beyond the process otherwise. */
export function openJobQueueSignal(databaseUrl: string, onError: (error: Error) => void = () => {}): JobQueueSignal {
  return /^postgres(ql)?:\/\//.test(databaseUrl) ? new PostgresQueueSignal(databaseUrl, onError) : new LocalQueueSignal();
}

/** One coordinator (SQLite): the coordinator's own notifier already wakes its pollers. */
class LocalQueueSignal implements JobQueueSignal {
  publish(): void {}
  subscribe(): void {}
  async close(): Promise<void> {}
}

/**
 * A dedicated connection (not from the pool: a pooled one would be handed to other queries)
 * that LISTENs on one channel and sends NOTIFYs. A lost connection is reopened with back-off;
 * listeners then hear `reconnected`, since signals sent meanwhile are lost.
 */
class PostgresQueueSignal implements JobQueueSignal {
  private client: pg.Client | null = null;
  private readonly listeners: Listener[] = [];
  private closed = false;
  private delayMs = RECONNECT_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private readonly ready: Promise<void>;

  constructor(private readonly url: string, private readonly onError: (error: Error) => void) {
    this.ready = this.connect(false);
  }

  publish(tick: number): void {
    const client = this.client;
    if (!client) return;
    client.query('SELECT pg_notify($1, $2)', [CHANNEL, String(tick)]).catch((error: unknown) => this.onError(error as Error));
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ready;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(reconnecting: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      const tick = Number(message.payload);
      if (message.channel === CHANNEL && Number.isSafeInteger(tick)) this.emit({ tick });
    });
    client.on('error', (error) => {
      this.onError(error);
      this.lost(client);
    });
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      this.onError(error as Error);
      await client.end().catch(() => {});
      this.retry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.delayMs = RECONNECT_MIN_MS;
    if (reconnecting) this.emit({ reconnected: true });
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.retry();
  }

  private retry(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect(true);
    }, this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, RECONNECT_MAX_MS);
  }

  private emit(event: Parameters<Listener>[0]): void {
    for (const listener of this.listeners) listener(event);
  }
}
