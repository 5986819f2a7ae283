import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isUniqueViolation } from '../../../src/storage/sql/database.ts';
import type { SqlStores } from '../../../src/storage/sql/stores/index.ts';
import type { NewNamespace, Visibility } from '../../../src/storage/types.ts';
import { openCiTestDatabase, type CiTestDatabase } from './ci-fixtures.ts';

const NOW = '2026-11-30T02:00:00.000Z';
const LATER = '2026-11-30T03:00:00.000Z';

function group(path: string, parentId: number | null, fullPath: string, visibility: Visibility): NewNamespace {
  return {
    kind: 'group', name: path, path, full_path: fullPath, full_name: fullPath.split('/').join(' / '), parent_id: parentId, owner_id: null,
    description: '', visibility, lfs_enabled: true, request_access_enabled: false, avatar_url: null, created_at: NOW, updated_at: NOW,
  };
}

/** NamespacesStore.moveGroup: one transaction on SQLite and PostgreSQL. */
describe('moving a group', () => {
  let database: CiTestDatabase;
  let stores: SqlStores;

  before(async () => {
    database = await openCiTestDatabase();
    stores = database.stores;
  });
  after(() => database.close());

  it('moves the group, rewrites its subtree\'s paths and narrows what is more open, together', async () => {
    const parent = await stores.namespaces.create(group('harbour', null, 'harbour', 'internal'));
    const moving = await stores.namespaces.create(group('ships', null, 'ships', 'public'));
    const child = await stores.namespaces.create(group('sails', moving.id, 'ships/sails', 'private'));
    await stores.namespaces.moveGroup(moving.id, { parentId: parent.id, fullPath: 'harbour/ships', fullName: 'harbour / ships', narrowTo: 'internal', updatedAt: LATER });
    const [moved, movedChild] = [await stores.namespaces.findById(moving.id), await stores.namespaces.findById(child.id)];
    assert.deepEqual([moved?.parent_id, moved?.full_path, moved?.visibility, moved?.updated_at], [parent.id, 'harbour/ships', 'internal', LATER]);
    assert.deepEqual([movedChild?.full_path, movedChild?.full_name, movedChild?.visibility], ['harbour/ships/sails', 'harbour / ships / sails', 'private']);
  });

  it('leaves everything as it was when a step fails midway (a subgroup\'s new path is taken)', async () => {
    const parent = await stores.namespaces.create(group('dock', null, 'dock', 'private'));
    const moving = await stores.namespaces.create(group('boats', null, 'boats', 'public'));
    const child = await stores.namespaces.create(group('oars', moving.id, 'boats/oars', 'public'));
    // A row already holding the path the subgroup would get: the move fails after the group's own row changed.
    await stores.namespaces.create(group('oars', null, 'dock/boats/oars', 'private'));
    await assert.rejects(
      stores.namespaces.moveGroup(moving.id, { parentId: parent.id, fullPath: 'dock/boats', fullName: 'dock / boats', narrowTo: 'private', updatedAt: LATER }),
      (error: unknown) => isUniqueViolation(error),
    );
    const [kept, keptChild] = [await stores.namespaces.findById(moving.id), await stores.namespaces.findById(child.id)];
    assert.deepEqual([kept?.parent_id, kept?.full_path, kept?.visibility, kept?.updated_at], [null, 'boats', 'public', NOW]);
    assert.deepEqual([keptChild?.full_path, keptChild?.visibility], ['boats/oars', 'public']);
  });
});
