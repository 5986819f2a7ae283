import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { NoteRecord } from '../../../storage/types-notes.ts';
import type { IssueView } from './issue-views.ts';

/** An issue created (`before` null) or updated, as its views show it before and after. */
export interface IssueSaved {
  project: ProjectRecord;
  actor: UserRecord;
  before: IssueView | null;
  after: IssueView;
  /** The time of the change, as written to `updated_at`. */
  at: string;
}

/** A note a person wrote on an issue. */
export interface NoteWritten {
  project: ProjectRecord;
  actor: UserRecord;
  issue: IssueView;
  note: NoteRecord;
}

/**
 * What follows a change, in the same request after it is stored: system notes, todos,
 * subscriptions. Each observer is one concern; the issues and notes services only announce.
 */
export interface IssueObserver {
  issueSaved?(change: IssueSaved): Promise<void>;
  noteWritten?(written: NoteWritten): Promise<void>;
  /** A person's note edited (its body changed): only webhooks hear it (GitLab's `action: update`). */
  noteUpdated?(written: NoteWritten): Promise<void>;
}

export async function announceIssueSaved(observers: readonly IssueObserver[], change: IssueSaved): Promise<void> {
  for (const observer of observers) await observer.issueSaved?.(change);
}

export async function announceNoteWritten(observers: readonly IssueObserver[], written: NoteWritten): Promise<void> {
  for (const observer of observers) await observer.noteWritten?.(written);
}
