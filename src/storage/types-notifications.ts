/**
 * "Something changed" between coordinators sharing one database, for what each keeps in
 * memory (the application settings). On PostgreSQL it travels over LISTEN/NOTIFY; with one
 * coordinator (SQLite) nothing leaves the process.
 */
export interface ChangeSignal {
  /** Tells the other coordinators (best effort: a lost announcement is made up for by their poll). */
  announce(): void;
  /**
   * `listener` hears every announcement, this coordinator's own included; `gap` after the
   * listening connection was lost and reopened (announcements may have been missed meanwhile).
   */
  subscribe(listener: (event: 'changed' | 'gap') => void): void;
}

/** The change signals of one database, over one listening connection. */
export interface DatabaseNotifications {
  /** The signal of one channel (a PostgreSQL identifier: lower-case letters, digits and `_`). */
  signal(channel: string): ChangeSignal;
  /** Whether announcements from other coordinators can arrive now (always true with one coordinator). */
  listening(): boolean;
  close(): Promise<void>;
}
