import { countAll, type Db } from '../database.ts';
import type { AwardableRef, AwardableType, AwardEmojiRecord, AwardEmojiStore, IssueVotes, NewAwardEmoji } from '../../types-award-emoji.ts';
import type { NoteableType, NoteRecord } from '../../types-notes.ts';
import type { Page } from '../../types-ci.ts';
import { noteRecordOf } from './notes.ts';

const toAward = (row: Omit<AwardEmojiRecord, 'awardable_type'> & { awardable_type: string }): AwardEmojiRecord => ({ ...row, awardable_type: row.awardable_type as AwardableType });

export class SqlAwardEmojiStore implements AwardEmojiStore {
  constructor(private readonly db: Db) {}

  async list(awardable: AwardableRef, page: Page): Promise<{ items: AwardEmojiRecord[]; total: number }> {
    const query = this.db.selectFrom('award_emoji').where('awardable_type', '=', awardable.type).where('awardable_id', '=', awardable.id);
    const counted = await query.select(countAll().as('total')).executeTakeFirstOrThrow();
    const rows = await query.selectAll().orderBy('id').offset(page.offset).limit(page.limit).execute();
    return { items: rows.map(toAward), total: Number(counted.total) };
  }

  async find(awardable: AwardableRef, awardId: number): Promise<AwardEmojiRecord | undefined> {
    const row = await this.db
      .selectFrom('award_emoji')
      .selectAll()
      .where('id', '=', awardId)
      .where('awardable_type', '=', awardable.type)
      .where('awardable_id', '=', awardable.id)
      .executeTakeFirst();
    return row && toAward(row);
  }

  async create(award: NewAwardEmoji): Promise<AwardEmojiRecord | undefined> {
    const row = await this.db
      .insertInto('award_emoji')
      .values(award)
      .onConflict((conflict) => conflict.columns(['awardable_type', 'awardable_id', 'user_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toAward(row);
  }

  async delete(id: number): Promise<boolean> {
    const result = await this.db.deleteFrom('award_emoji').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async votesOf(ids: readonly number[], awardableType: NoteableType = 'Issue'): Promise<Map<number, IssueVotes>> {
    const votes = new Map<number, IssueVotes>();
    if (ids.length === 0) return votes;
    const rows = await this.db
      .selectFrom('award_emoji')
      .select(['awardable_id', 'name', countAll().as('count')])
      .where('awardable_type', '=', awardableType)
      .where('awardable_id', 'in', [...new Set(ids)])
      .where('name', 'in', ['thumbsup', 'thumbsdown'])
      .groupBy(['awardable_id', 'name'])
      .execute();
    for (const row of rows) {
      const entry = votes.get(row.awardable_id) ?? { upvotes: 0, downvotes: 0 };
      if (row.name === 'thumbsup') entry.upvotes = Number(row.count);
      else entry.downvotes = Number(row.count);
      votes.set(row.awardable_id, entry);
    }
    return votes;
  }

  async findNote(noteableType: NoteableType, noteableId: number, noteId: number): Promise<NoteRecord | undefined> {
    const row = await this.db
      .selectFrom('notes')
      .selectAll()
      .where('id', '=', noteId)
      .where('noteable_type', '=', noteableType)
      .where('noteable_id', '=', noteableId)
      .executeTakeFirst();
    return row && noteRecordOf(row);
  }
}
