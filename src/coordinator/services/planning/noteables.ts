import { accessDenied } from '../../../shared/errors.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { MergeRequestRecord } from '../../../storage/types-merge-requests.ts';
import type { NoteableType, NoteRecord } from '../../../storage/types-notes.ts';
import type { IssueRecord } from '../../../storage/types-planning.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { VisibleMergeRequests } from './merge-requests/visible.ts';
import type { VisibleIssues } from './visible-issues.ts';

/** An issue or a merge request as the routes name it: by type and iid within a project. */
export interface NoteableRef {
  type: NoteableType;
  iid: number;
}

/** An issue or merge request the caller sees, with its project: what notes, awards and time logs hang on. */
export type Noteable = { type: 'Issue'; project: ProjectRecord; record: IssueRecord } | { type: 'MergeRequest'; project: ProjectRecord; record: MergeRequestRecord };

/** A note a person wrote on a merge request (the issue counterpart is IssueObserver.noteWritten). */
export interface MergeRequestNoteWritten {
  project: ProjectRecord;
  actor: UserRecord;
  mergeRequest: MergeRequestRecord;
  note: NoteRecord;
}

export interface MergeRequestNoteObserver {
  mergeRequestNoteWritten?(written: MergeRequestNoteWritten): Promise<void>;
  /** A person's note on a merge request edited (its body changed). */
  mergeRequestNoteUpdated?(written: MergeRequestNoteWritten): Promise<void>;
}

export interface NoteablesDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  planningPermissions: Pick<PlanningPermissions, 'canReadIssues'>;
  visibleIssues: Pick<VisibleIssues, 'find' | 'inProject'>;
  visibleMergeRequests: Pick<VisibleMergeRequests, 'find' | 'inProject'>;
}

/**
 * The look-up below every note, award emoji and time tracking route: the issue by the issues'
 * rule (VisibleIssues), the merge request by the merge requests' one (VisibleMergeRequests);
 * what the caller may not see is the same 404 as what does not exist.
 */
export class Noteables {
  constructor(private readonly deps: NoteablesDeps) {}

  async find(projectRef: string, actor: Actor, ref: NoteableRef): Promise<Noteable> {
    if (ref.type === 'Issue') {
      const { project, issue } = await this.deps.visibleIssues.find(projectRef, actor, ref.iid);
      return { type: 'Issue', project, record: issue };
    }
    const { project, mergeRequest } = await this.deps.visibleMergeRequests.find(projectRef, actor, ref.iid);
    return { type: 'MergeRequest', project, record: mergeRequest };
  }

  /** As the notes routes look up: a project whose issues the caller may not read is a 403 before the issue is looked for. */
  async forNotes(projectRef: string, actor: Actor, ref: NoteableRef): Promise<Noteable> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (ref.type === 'MergeRequest') return { type: 'MergeRequest', project, record: await this.deps.visibleMergeRequests.inProject(project, actor, ref.iid) };
    if (!(await this.deps.planningPermissions.canReadIssues(project, actor))) throw accessDenied();
    return { type: 'Issue', project, record: await this.deps.visibleIssues.inProject(project, actor, ref.iid) };
  }
}
