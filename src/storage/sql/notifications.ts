import type pg from 'pg';
import type { ChangeSignal, DatabaseNotifications } from '../types-notifications.ts';

/** The listening connections' `application_name`: operators (and tests) find them in `pg_stat_activity`. */
export const NOTIFICATIONS_APPLICATION_NAME = 'gantry-notifications';
const RECONNECT_MIN_MS = 200;
const RECONNECT_MAX_MS = 5_000;

type Listener = Parameters<ChangeSignal['subscribe']>[0];

/**
 * LISTEN/NOTIFY on PostgreSQL, every channel over one connection per coordinator; nothing
 * beyond the process otherwise. The settings and the job queue (queue-signal.ts) are channels.
 */
export function openDatabaseNotifications(databaseUrl: string, onError: (error: Error) => void = () => {}): DatabaseNotifications {
  return /^postgres(ql)?:\/\//.test(databaseUrl) ? new PostgresNotifications(databaseUrl, onError) : new LocalNotifications();
}

/** One coordinator: whoever changes something updates its own memory; there is nobody to tell. */
class LocalNotifications implements DatabaseNotifications {
  signal(): ChangeSignal {
    return { announce() {}, subscribe() {} };
  }

  listening(): boolean {
    return true;
  }

  async close(): Promise<void> {}
}

/**
 * A dedicated connection (a pooled one would be handed to other queries) that LISTENs on every
 * channel asked for and sends the NOTIFYs. A lost connection is reopened with back-off; the
 * listeners of every channel then hear `gap`, since announcements sent meanwhile are lost.
 */
class PostgresNotifications implements DatabaseNotifications {
  private client: pg.Client | null = null;
  private readonly listeners = new Map<string, Listener[]>();
  private closed = false;
  private delayMs = RECONNECT_MIN_MS;
  private timer: NodeJS.Timeout | null = null;
  private connecting: Promise<void>;

  constructor(private readonly url: string, private readonly onError: (error: Error) => void) {
    this.connecting = this.connect(false);
  }

  signal(channel: string): ChangeSignal {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid notification channel ${channel}`);
    if (!this.listeners.has(channel)) {
      this.listeners.set(channel, []);
      const client = this.client;
      if (client) client.query(`LISTEN ${channel}`).catch((error: unknown) => this.onError(error as Error));
    }
    return {
      announce: (payload = '') => {
        const client = this.client;
        if (client) client.query('SELECT pg_notify($1, $2)', [channel, payload]).catch((error: unknown) => this.onError(error as Error));
      },
      subscribe: (listener) => {
        this.listeners.get(channel)?.push(listener);
      },
    };
  }

  listening(): boolean {
    return this.client !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.connecting;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async connect(reconnecting: boolean): Promise<void> {
    // Imported here: a coordinator on SQLite never loads pg.
    const { default: Pg } = await import('pg');
    const client = new Pg.Client({ connectionString: this.url, application_name: NOTIFICATIONS_APPLICATION_NAME });
    client.on('notification', (message) => this.emit(message.channel, 'changed', message.payload ?? ''));
    client.on('error', (error) => {
      this.onError(error);
      this.lost(client);
    });
    client.on('end', () => this.lost(client));
    const listened = new Set<string>();
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) {
        await client.query(`LISTEN ${channel}`);
        listened.add(channel);
      }
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
    // Channels asked for while the connection was being made.
    for (const channel of this.listeners.keys()) {
      if (!listened.has(channel)) client.query(`LISTEN ${channel}`).catch((error: unknown) => this.onError(error as Error));
    }
    if (reconnecting) for (const channel of this.listeners.keys()) this.emit(channel, 'gap', '');
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
      this.connecting = this.connect(true);
    }, this.delayMs);
    this.delayMs = Math.min(this.delayMs * 2, RECONNECT_MAX_MS);
  }

  private emit(channel: string, event: 'changed' | 'gap', payload: string): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(event, payload);
  }
}
