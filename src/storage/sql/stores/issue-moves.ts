import { sql } from '#deps/kysely';
import type { IssueMovesStore, IssueMoveWrite } from '../../types-issue-moves.ts';
import type { IssueRecord } from '../../types-planning.ts';
import type { Db } from '../database.ts';
import { SqlIssuesStore } from './issues.ts';

/** Thrown inside the transaction to roll it back when another move won. */
class MovedMeanwhile extends Error {}

export class SqlIssueMovesStore implements IssueMovesStore {
  constructor(private readonly db: Db) {}

  async move(write: IssueMoveWrite): Promise<IssueRecord | undefined> {
    try {
      return await this.db.transaction().execute(async (trx) => {
        const created = await new SqlIssuesStore(trx).create(write.copy, write.relations);
        const closed = await trx
          .updateTable('issues')
          .set((eb) => ({
            moved_to_id: created.id,
            updated_at: write.at,
            state: 'closed',
            closed_at: eb.fn.coalesce('closed_at', sql<string>`${write.at}`),
            closed_by_id: eb.case().when('state', '=', 'opened').then(write.movedBy).else(eb.ref('closed_by_id')).end(),
          }))
          .where('id', '=', write.original.id)
          .where('moved_to_id', 'is', null)
          .executeTakeFirst();
        if (closed.numUpdatedRows === 0n) throw new MovedMeanwhile();
        await copyNotes(trx, write.original.id, created);
        await copyAwardEmoji(trx, write.original.id, created.id);
        return created;
      });
    } catch (error) {
      if (error instanceof MovedMeanwhile) return undefined;
      throw error;
    }
  }
}

/** One INSERT … SELECT: however many notes the issue has, none passes through this process. */
async function copyNotes(trx: Db, fromIssueId: number, to: IssueRecord): Promise<void> {
  await trx
    .insertInto('notes')
    .columns(['project_id', 'noteable_type', 'noteable_id', 'author_id', 'body', 'system', 'internal', 'created_at', 'updated_at', 'discussion_id', 'type', 'position', 'resolved_by_id', 'resolved_at'])
    .expression((eb) =>
      eb
        .selectFrom('notes')
        .select([
          sql<number>`cast(${to.project_id} as integer)`.as('project_id'),
          'noteable_type',
          sql<number>`cast(${to.id} as integer)`.as('noteable_id'),
          'author_id', 'body', 'system', 'internal', 'created_at', 'updated_at',
          // A moved issue keeps its threads (thread ids are only ever looked up within one noteable).
          'discussion_id', 'type', 'position', 'resolved_by_id', 'resolved_at',
        ])
        .where('noteable_type', '=', 'Issue')
        .where('noteable_id', '=', fromIssueId)
        .orderBy('id'),
    )
    .execute();
}

async function copyAwardEmoji(trx: Db, fromIssueId: number, toIssueId: number): Promise<void> {
  await trx
    .insertInto('award_emoji')
    .columns(['name', 'user_id', 'awardable_type', 'awardable_id', 'created_at', 'updated_at'])
    .expression((eb) =>
      eb
        .selectFrom('award_emoji')
        .select(['name', 'user_id', 'awardable_type', sql<number>`cast(${toIssueId} as integer)`.as('awardable_id'), 'created_at', 'updated_at'])
        .where('awardable_type', '=', 'Issue')
        .where('awardable_id', '=', fromIssueId)
        .orderBy('id'),
    )
    .execute();
}
