import { randomBytes } from 'node:crypto';
import { withId, type DialectMigration, type MigrationDb } from './helpers.ts';

/**
 * Threads (GitLab's discussions) on issues and merge requests: every note belongs to one by its
 * 40-hex `discussion_id` (an individual note is a thread of one); `type` is null for a plain
 * note, `DiscussionNote` or `DiffNote` (with its diff `position` as JSON); a resolvable note of
 * a merge request records who resolved it and when. Also the approvals of merge requests (one
 * row per approving user, GitLab CE's free-tier approvals).
 */
export const discussions: DialectMigration = {
  async up(db, dialect) {
    await db.schema.alterTable('notes').addColumn('discussion_id', 'text').execute();
    await db.schema.alterTable('notes').addColumn('type', 'text').execute();
    await db.schema.alterTable('notes').addColumn('position', 'text').execute();
    await db.schema.alterTable('notes').addColumn('resolved_by_id', 'integer').execute();
    await db.schema.alterTable('notes').addColumn('resolved_at', 'text').execute();
    await giveEveryNoteItsOwnDiscussion(db);
    await db.schema.createIndex('notes_discussion').on('notes').columns(['noteable_type', 'noteable_id', 'discussion_id']).execute();
    await withId(db.schema.createTable('merge_request_approvals'), dialect)
      .addColumn('merge_request_id', 'integer', (c) => c.notNull().references('merge_requests.id').onDelete('cascade'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('merge_request_approvals_once', ['merge_request_id', 'user_id'])
      .execute();
  },
};

/** Existing notes become individual notes, as GitLab shows notes that were never replied to. */
async function giveEveryNoteItsOwnDiscussion(db: MigrationDb): Promise<void> {
  for (;;) {
    const rows: { id: number }[] = await db.selectFrom('notes').select('id').where('discussion_id', 'is', null).orderBy('id').limit(500).execute();
    if (rows.length === 0) return;
    for (const { id } of rows) {
      await db.updateTable('notes').set({ discussion_id: newDiscussionId() }).where('id', '=', id).execute();
    }
  }
}

/** A discussion id as GitLab's look: 40 hexadecimal characters. */
function newDiscussionId(): string {
  return randomBytes(20).toString('hex');
}
