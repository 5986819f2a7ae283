import { GantryError } from '../../../shared/errors.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { AwardableRef, AwardEmojiRecord, AwardEmojiStore } from '../../../storage/types-award-emoji.ts';
import type { Actor } from '../access/permissions.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { Page, Paged } from '../repository/pages.ts';
import { emojiName } from './award-emoji-names.ts';
import type { Noteable, NoteableRef, Noteables } from './noteables.ts';

/** An issue or merge request (`noteId` absent) or one of its notes, as the award emoji routes name them. */
export interface AwardTarget {
  projectRef: string;
  noteable: NoteableRef;
  noteId?: number;
}

export interface AwardView {
  award: AwardEmojiRecord;
  user: UserRecord | null;
}

export interface AwardEmojiServiceDeps {
  awardEmoji: AwardEmojiStore;
  users: Pick<UsersStore, 'findByIds'>;
  noteables: Pick<Noteables, 'find'>;
  planningPermissions: Pick<PlanningPermissions, 'canAwardEmoji' | 'seesConfidentialIssues' | 'canReadInternalNotes'>;
}

const refused = (reason: string) => new GantryError('GANTRY_E_AWARD_EMOJI_REFUSED', reason, { resource: `Award Emoji ${reason}` });

/**
 * Award emoji on issues, merge requests and their notes, as GitLab's AwardEmojis services:
 * whoever sees the issue or request (and the note: internal ones to Reporters and up) reads them and, signed in, awards
 * them, once per name; only the awarder or an administrator takes one back.
 */
export class AwardEmojiService {
  constructor(private readonly deps: AwardEmojiServiceDeps) {}

  async list(target: AwardTarget, actor: Actor, page: Page): Promise<Paged<AwardView>> {
    const { awardable } = await this.resolve(target, actor);
    const { items, total } = await this.deps.awardEmoji.list(awardable, page);
    return { items: await this.views(items), total };
  }

  async get(target: AwardTarget, actor: Actor, awardId: number): Promise<AwardView> {
    const { awardable } = await this.resolve(target, actor);
    const [view] = await this.views([await this.find(awardable, awardId)]);
    return view!;
  }

  async award(target: AwardTarget, actor: UserRecord, name: string): Promise<AwardView> {
    const { project, record, awardable, systemNote } = await this.resolve(target, actor);
    if (!(await this.deps.planningPermissions.canAwardEmoji(project, record, actor))) throw refused('User cannot award emoji to awardable');
    if (systemNote) throw refused('Awardable cannot be awarded emoji');
    const known = emojiName(name);
    if (known === undefined) throw refused('Name is not a valid emoji name');
    const now = new Date().toISOString();
    const award = await this.deps.awardEmoji.create({ name: known, user_id: actor.id, awardable_type: awardable.type, awardable_id: awardable.id, created_at: now, updated_at: now });
    if (!award) throw refused('Name has already been taken');
    return { award, user: actor };
  }

  async remove(target: AwardTarget, actor: UserRecord, awardId: number): Promise<void> {
    const { awardable } = await this.resolve(target, actor);
    const award = await this.find(awardable, awardId);
    if (award.user_id !== actor.id && !actor.is_admin) throw new GantryError('GANTRY_E_AWARD_EMOJI_NOT_OWNED');
    if (!(await this.deps.awardEmoji.delete(award.id))) throw new GantryError('GANTRY_E_AWARD_EMOJI_NOT_FOUND');
  }

  private async find(awardable: AwardableRef, awardId: number): Promise<AwardEmojiRecord> {
    const award = await this.deps.awardEmoji.find(awardable, awardId);
    if (!award) throw new GantryError('GANTRY_E_AWARD_EMOJI_NOT_FOUND');
    return award;
  }

  /** The issue or request the caller sees and, when a note is named, that note of it (internal notes: Reporters and up). */
  private async resolve(target: AwardTarget, actor: Actor): Promise<{ project: ProjectRecord; record: Noteable['record']; awardable: AwardableRef; systemNote: boolean }> {
    const { type, project, record } = await this.deps.noteables.find(target.projectRef, actor, target.noteable);
    if (target.noteId === undefined) return { project, record, awardable: { type, id: record.id }, systemNote: false };
    const note = await this.deps.awardEmoji.findNote(type, record.id, target.noteId);
    // read_internal_note is the same level as read_confidential_issues: Reporters and up.
    const rules = this.deps.planningPermissions;
    if (!note || (note.internal && !(await (type === 'Issue' ? rules.seesConfidentialIssues(project, actor) : rules.canReadInternalNotes(project, actor))))) throw new GantryError('GANTRY_E_NOTE_NOT_FOUND');
    return { project, record, awardable: { type: 'Note', id: note.id }, systemNote: note.system };
  }

  private async views(awards: readonly AwardEmojiRecord[]): Promise<AwardView[]> {
    const userIds = [...new Set(awards.map((award) => award.user_id))];
    const users = new Map((userIds.length ? await this.deps.users.findByIds(userIds) : []).map((user) => [user.id, user]));
    return awards.map((award) => ({ award, user: users.get(award.user_id) ?? null }));
  }
}
