import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation, openDatabase, type OpenedDatabase } from '../../../src/storage/sql/database.ts';
import { migrateToLatest } from '../../../src/storage/sql/migrate.ts';
import { createSqlStores, type SqlStores } from '../../../src/storage/sql/stores/index.ts';
import type { NewNamespace, NewUser } from '../../../src/storage/types.ts';
import { testDatabase } from '../../helpers/database.ts';

const NOW = '2026-11-22T08:26:31.123Z';

function newUser(username: string): NewUser {
  return {
    username, name: username, email: `${username}@example.com`, password_digest: null, state: 'active', is_admin: false,
    is_ghost: false, bio: '', location: '', messenger_id: '', network_profile: '', microblog_account: '', website_url: '',
    organization: '', projects_limit: 10, can_create_group: true, external: false, extern_uid: null, provider: null,
    avatar_url: null, theme_id: 1, color_scheme_id: 1, two_factor_enabled: false, password_expires_at: null,
    created_at: NOW, confirmed_at: NOW, last_sign_in_at: null, current_sign_in_at: null, last_activity_on: null,
  };
}

function newGroup(path: string, parentId: number | null): NewNamespace {
  return {
    kind: 'group', name: path.toUpperCase(), path, full_path: path, full_name: path, parent_id: parentId, owner_id: null,
    description: '', visibility: 'private', lfs_enabled: true, request_access_enabled: false, avatar_url: null,
    created_at: NOW, updated_at: NOW,
  };
}

describe('SQL stores', () => {
  let database: { url: string; drop(): Promise<void> };
  let opened: OpenedDatabase;
  let stores: SqlStores;

  before(async () => {
    // Empty, so every migration runs here on each database.
    database = await testDatabase({ fresh: true });
    opened = openDatabase(database.url);
    await migrateToLatest(opened.db, opened.dialect);
    stores = createSqlStores(opened.db);
  });
  after(async () => {
    await opened.close();
    await database.drop();
  });

  it('applies migrations idempotently', async () => {
    await migrateToLatest(opened.db, opened.dialect);
    assert.equal(await stores.users.count(), 0);
  });

  it('round-trips users with booleans and finds them case-insensitively', async () => {
    const alice = await stores.users.create({ ...newUser('Alice'), is_admin: true });
    assert.equal(alice.is_admin, true);
    assert.equal(alice.external, false);
    assert.equal((await stores.users.findByUsername('alice'))?.id, alice.id);
    assert.equal((await stores.users.findByEmail('ALICE@example.com'))?.id, alice.id);
    const updated = await stores.users.update(alice.id, { external: true, bio: 'hello' });
    assert.equal(updated?.external, true);
    assert.equal(updated?.bio, 'hello');
  });

  it('reports duplicate usernames as unique violations on either backend', async () => {
    await assert.rejects(stores.users.create(newUser('ALICE')), (error: unknown) => isUniqueViolation(error));
  });

  it('lists users with filters, search and a total', async () => {
    await stores.users.create(newUser('bob'));
    const blocked = await stores.users.create(newUser('carol'));
    await stores.users.update(blocked.id, { state: 'blocked' });
    const all = await stores.users.list({}, { offset: 0, limit: 2 });
    assert.equal(all.total, 3);
    assert.equal(all.items.length, 2);
    assert.deepEqual((await stores.users.list({ blocked: true }, { offset: 0, limit: 10 })).items.map((u) => u.username), ['carol']);
    assert.deepEqual((await stores.users.list({ search: 'BO' }, { offset: 0, limit: 10 })).items.map((u) => u.username), ['bob']);
    assert.equal((await stores.users.list({ search: '%' }, { offset: 0, limit: 10 })).total, 0);
  });

  it('finds users by ids: one (twice over), several, and none of an unknown id', async () => {
    const bob = await stores.users.findByUsername('bob');
    const carol = await stores.users.findByUsername('carol');
    assert.ok(bob && carol);
    assert.deepEqual(await stores.users.findByIds([bob.id, bob.id]), [bob]);
    assert.deepEqual((await stores.users.findByIds([carol.id, bob.id, 999_999])).sort((a, b) => a.id - b.id), [bob, carol].sort((a, b) => a.id - b.id));
    assert.deepEqual(await stores.users.findByIds([999_999]), []);
    assert.deepEqual(await stores.users.findByIds([]), []);
  });

  it('verifies tokens by digest only and keeps their scopes, expiry and revocation', async () => {
    const user = await stores.users.findByUsername('bob');
    assert.ok(user);
    const created = await stores.tokens.create(user.id, 'secret-token', { name: 'test', scopes: ['read_api'], expiresAt: '2099-12-31' });
    const found = await stores.tokens.findByToken('secret-token');
    assert.deepEqual(found, created);
    assert.deepEqual([found?.user_id, found?.scopes, found?.expires_at, found?.revoked, found?.impersonation], [user.id, ['read_api'], '2099-12-31', false, false]);
    assert.equal(await stores.tokens.findByToken('secret-tokeN'), undefined);
    // Sign-in reads the token and its owner in one join: each comes out whole, neither with the other's columns.
    const signIn = await stores.tokens.findWithOwner('secret-token');
    assert.deepEqual(signIn, { token: created, owner: user });
    assert.equal(await stores.tokens.findWithOwner('secret-tokeN'), undefined);
    const everything = await stores.tokens.create(user.id, 'other-token', { name: 'all', impersonation: true });
    assert.ok(everything.scopes.includes('api') && everything.scopes.includes('sudo'));
    assert.deepEqual((await stores.tokens.list({ userId: user.id, impersonation: true })).map((token) => token.name), ['all']);
    await stores.tokens.revoke(created.id);
    assert.equal((await stores.tokens.findById(created.id))?.revoked, true);
  });

  it('updates rows by id, whatever set of columns changes, answering the row', async () => {
    const group = await stores.namespaces.create(newGroup('edits', null));
    const renamed = await stores.namespaces.update(group.id, { name: 'First', description: 'one' });
    assert.deepEqual([renamed?.name, renamed?.description], ['First', 'one']);
    await stores.namespaces.update(group.id, { visibility: 'internal' });
    const last = await stores.namespaces.update(group.id, { name: 'Third', description: '' });
    assert.deepEqual([last?.name, last?.description, last?.visibility], ['Third', '', 'internal']);
    assert.equal(await stores.namespaces.update(999_999, { name: 'Nobody' }), undefined);
    const reread = await stores.namespaces.findById(group.id);
    assert.deepEqual([reread?.name, reread?.description, reread?.visibility], ['Third', '', 'internal']);
    assert.equal((await stores.namespaces.update(group.id, { lfs_enabled: false }))?.lfs_enabled, false);
  });

  it('keeps namespace full paths consistent through renames and walks the tree', async () => {
    const top = await stores.namespaces.create(newGroup('top', null));
    const mid = await stores.namespaces.create({ ...newGroup('mid', top.id), full_path: 'top/mid' });
    const leaf = await stores.namespaces.create({ ...newGroup('leaf', mid.id), full_path: 'top/mid/leaf' });
    await stores.namespaces.update(top.id, { path: 'renamed', name: 'Renamed' });
    await stores.namespaces.refreshPaths(top.id);
    assert.equal((await stores.namespaces.findById(leaf.id))?.full_path, 'renamed/mid/leaf');
    assert.equal((await stores.namespaces.findById(leaf.id))?.full_name, 'Renamed / MID / LEAF');
    assert.equal((await stores.namespaces.findByFullPath('RENAMED/MID'))?.id, mid.id);
    assert.deepEqual((await stores.namespaces.ancestors(leaf.id)).map((n) => n.id), [mid.id, top.id]);
    assert.deepEqual((await stores.namespaces.descendantIds(top.id)).sort(), [mid.id, leaf.id].sort());
    await stores.namespaces.delete(top.id);
    assert.equal(await stores.namespaces.findById(leaf.id), undefined);
  });

  it('stores memberships once per source and user', async () => {
    const user = await stores.users.findByUsername('bob');
    assert.ok(user);
    const group = await stores.namespaces.create(newGroup('team', null));
    const member = { source_type: 'namespace' as const, source_id: group.id, user_id: user.id, access_level: 30 as const, notification_level: 3, expires_at: null, created_by_id: null, created_at: NOW, updated_at: NOW };
    await stores.members.add(member);
    await assert.rejects(stores.members.add(member), (error: unknown) => isUniqueViolation(error));
    assert.equal((await stores.members.listForUser(user.id, 'namespace', [group.id]))[0]?.access_level, 30);
    assert.equal(await stores.members.remove('namespace', group.id, user.id), true);
    assert.equal(await stores.members.remove('namespace', group.id, user.id), false);
  });

  it('matches subjects carrying every custom attribute pair', async () => {
    await stores.customAttributes.set('project', 1, 'env', 'prod');
    await stores.customAttributes.set('project', 1, 'team', 'a');
    await stores.customAttributes.set('project', 2, 'env', 'prod');
    await stores.customAttributes.set('project', 2, 'env', 'staging');
    assert.deepEqual(await stores.customAttributes.subjectIdsMatching('project', { env: 'prod', team: 'a' }), [1]);
    assert.deepEqual((await stores.customAttributes.list('project', 2)).map((a) => a.value), ['staging']);
  });

  it('saves application settings as one document', async () => {
    assert.equal(await stores.settings.load(), undefined);
    await stores.settings.save({ signup_enabled: false }, NOW);
    const later = '2026-11-23T00:00:00.000Z';
    const saved = await stores.settings.save({ signup_enabled: true, default_projects_limit: 5 }, later);
    assert.deepEqual(saved.settings, { signup_enabled: true, default_projects_limit: 5 });
    assert.equal(saved.created_at, NOW);
    assert.equal(saved.updated_at, later);
  });
});
