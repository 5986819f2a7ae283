/**
 * "Something changed" between coordinators sharing one database, for what each keeps in
 * memory (the application settings, the job queue's value). On PostgreSQL it travels over
 * LISTEN/NOTIFY; with one coordinator (SQLite) nothing leaves the process.
 */
export interface ChangeSignal {
  /**
   * Tells the other coordinators, with a short `payload` (best effort: whoever relies on it
   * makes up for a lost announcement, by a poll or a timeout).
   */
  announce(payload?: string): void;
  /**
   * `listener` hears every announcement, this coordinator's own included, with its payload
   * (empty when none was given); `gap` (no payload) after the listening connection was lost and reopened
   * (announcements may have been missed meanwhile).
   */
  subscribe(listener: (event: 'changed' | 'gap', payload?: string) => void): void;
}

/** The change signals of one database, over one listening connection. */
export interface DatabaseNotifications {
  /** The signal of one channel (a PostgreSQL identifier: lower-case letters, digits and `_`). */
  signal(channel: string): ChangeSignal;
  /** Whether announcements from other coordinators can arrive now (always true with one coordinator). */
  listening(): boolean;
  close(): Promise<void>;
}
