import type { DialectMigration } from './helpers.ts';

const BATCH = 500;

/** default_branch_protection → [push, merge] levels, as the setting gave them (0: none). */
const LEVELS: Record<number, [number, number] | undefined> = { 1: [30, 30], 2: [40, 40], 3: [40, 30] };

/**
 * The default branch is protected by a rule of its own, made when the branch is created (GitLab's
 * ProtectDefaultBranchService). Before, it was protected from the application setting at each
 * check, with no rule: each project's default branch that no rule covers gets the rule the
 * setting gave it, so that nothing protected is left open. The wildcard rule (`*` any run of
 * characters, `/` included) is written here as it stands today: a migration never changes
 * with the code.
 */
export const defaultBranchRules: DialectMigration = {
  async up(db) {
    const settings = await db.selectFrom('application_settings').select('settings').where('id', '=', 1).executeTakeFirst();
    const stored = settings ? (JSON.parse(String(settings.settings)) as { default_branch_protection?: unknown }).default_branch_protection : undefined;
    const levels = LEVELS[typeof stored === 'number' ? stored : 2];
    if (!levels) return;
    const now = new Date().toISOString();
    for (let after = 0; ; ) {
      const projects = (await db
        .selectFrom('projects')
        .select(['id', 'default_branch'])
        .where('id', '>', after)
        .where('default_branch', 'is not', null)
        .orderBy('id')
        .limit(BATCH)
        .execute()) as Array<{ id: number; default_branch: string }>;
      if (projects.length === 0) break;
      const rules = (await db
        .selectFrom('protected_branches')
        .select(['project_id', 'name'])
        .where('project_id', 'in', projects.map((project) => project.id))
        .execute()) as Array<{ project_id: number; name: string }>;
      for (const project of projects) {
        if (rules.some((rule) => rule.project_id === project.id && covers(rule.name, project.default_branch))) continue;
        await db
          .insertInto('protected_branches')
          .values({ project_id: project.id, name: project.default_branch, push_access_level: levels[0], merge_access_level: levels[1], allow_force_push: 0, created_at: now, updated_at: now })
          .execute();
      }
      if (projects.length < BATCH) break;
      after = projects[projects.length - 1]!.id;
    }
  },
};

function covers(pattern: string, branch: string): boolean {
  if (!pattern.includes('*')) return pattern === branch;
  const parts = pattern.split('*');
  const [head, tail] = [parts[0]!, parts[parts.length - 1]!];
  if (branch.length < head.length + tail.length || !branch.startsWith(head) || !branch.endsWith(tail)) return false;
  let position = head.length;
  const end = branch.length - tail.length;
  for (const middle of parts.slice(1, -1)) {
    const found = branch.indexOf(middle, position);
    if (found < 0 || found + middle.length > end) return false;
    position = found + middle.length;
  }
  return true;
}
