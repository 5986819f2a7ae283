/**
 * Run by no-code-generation.test.ts under `node --disallow-code-generation-from-strings`:
 * migrates the database named on the command line, writes and reads through the stores, and
 * prints what it read as one JSON line.
 */
import { openDatabase } from '../../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { createSqlStores } from '../../../src/storage/sql/stores/index.ts';

const NOW = '2026-11-22T08:26:31.123Z';

let codeGeneration = 'allowed';
try {
  new Function('return 1');
} catch (error) {
  codeGeneration = (error as Error).name;
}

const opened = openDatabase(process.argv[2]!);
try {
  await migrateToLatest(opened.db, opened.dialect);
  const stores = createSqlStores(opened.db);
  const user = await stores.users.create({
    username: 'coder', name: 'Coder', email: 'coder@example.com', password_digest: null, state: 'active', is_admin: true,
    is_ghost: false, bio: '', location: '', messenger_id: '', network_profile: '', microblog_account: '', website_url: '',
    organization: '', projects_limit: 10, can_create_group: true, external: false, extern_uid: null, provider: null,
    avatar_url: null, theme_id: 1, color_scheme_id: 1, two_factor_enabled: false, password_expires_at: null,
    created_at: NOW, confirmed_at: NOW, last_sign_in_at: null, current_sign_in_at: null, last_activity_on: null,
  });
  const group = await stores.namespaces.create({
    kind: 'group', name: 'Tools', path: 'tools', full_path: 'tools', full_name: 'Tools', parent_id: null, owner_id: null,
    description: '', visibility: 'private', lfs_enabled: true, request_access_enabled: false, avatar_url: null,
    created_at: NOW, updated_at: NOW,
  });
  await stores.namespaces.update(group.id, { request_access_enabled: true });
  const [readUser] = await stores.users.findByIds([user.id]);
  const [readGroup] = await stores.namespaces.findByIds([group.id]);
  console.log(JSON.stringify({
    codeGeneration,
    user: { username: readUser?.username, is_admin: readUser?.is_admin, external: readUser?.external },
    group: { path: readGroup?.path, lfs_enabled: readGroup?.lfs_enabled, request_access_enabled: readGroup?.request_access_enabled },
  }));
} finally {
  await opened.close();
}
