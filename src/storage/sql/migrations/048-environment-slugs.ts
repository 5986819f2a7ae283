import { createHash } from 'node:crypto';
import type { DialectMigration } from './helpers.ts';

const BATCH = 500;

/**
 * Environment slugs as GitLab makes them: the suffix of a changed or cut name is the last six
 * base-36 digits of the name's SHA-256 (earlier slugs took six hex digits), so that the slug an
 * environment has and the `CI_ENVIRONMENT_SLUG` its jobs get agree. The rule is written here as
 * it stands today: a migration never changes with the code.
 */
export const environmentSlugs: DialectMigration = {
  async up(db) {
    for (let after = 0; ; ) {
      const rows = (await db.selectFrom('environments').select(['id', 'name', 'slug']).where('id', '>', after).orderBy('id').limit(BATCH).execute()) as Array<{ id: number; name: string; slug: string }>;
      for (const row of rows) {
        const slug = slugOf(row.name);
        if (slug !== row.slug) await db.updateTable('environments').set({ slug }).where('id', '=', row.id).execute();
      }
      if (rows.length < BATCH) break;
      after = rows[rows.length - 1]!.id;
    }
  },
};

function slugOf(name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, '-');
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, '-');
  if (slug.length > 24 || slug !== name) {
    const suffix = BigInt(`0x${createHash('sha256').update(name).digest('hex')}`).toString(36).slice(-6);
    return `${slug.slice(0, 17).replace(/-$/, '')}-${suffix}`;
  }
  return slug.replace(/-$/, '');
}
