/**
 * The job queue's wake-up signal between coordinators sharing one database: "jobs became
 * pending, the queue value is now `tick`". It is one channel of the database's notifications
 * (types-notifications.ts): on PostgreSQL it travels over LISTEN/NOTIFY; with SQLite (one
 * coordinator) nothing leaves the process.
 */
export interface JobQueueSignal {
  /** Tells the other coordinators (best effort: a lost signal only delays a long poll until it ends). */
  publish(tick: number): void;
  /** `listener` hears ticks published by any coordinator, this one included; `reconnected` after a gap in listening. */
  subscribe(listener: (event: { tick: number } | { reconnected: true }) => void): void;
}
