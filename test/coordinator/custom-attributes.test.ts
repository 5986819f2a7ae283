import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NamespaceRecord, ProjectRecord } from '../../src/storage/types.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const NOW = '2024-01-02T03:04:05.000Z';

/**
 * Subjects are made through the stores so this file does not depend on the users, groups and
 * projects endpoints being there.
 */
async function seed(gantry: TestCoordinator): Promise<{ userId: number; userToken: string; group: NamespaceRecord; project: ProjectRecord }> {
  const { accounts, stores } = gantry.coordinator.context;
  const user = await accounts.createUser({ username: 'attr-user', name: 'Attr User', email: 'attr-user@example.com', projects_limit: 10 });
  const userToken = await accounts.issueToken(user.id, 'test');
  const group = await stores.namespaces.create({
    kind: 'group', name: 'Attr Group', path: 'attr-group', full_path: 'attr-group', full_name: 'Attr Group', parent_id: null, owner_id: null,
    description: '', visibility: 'private', lfs_enabled: true, request_access_enabled: false, avatar_url: null, created_at: NOW, updated_at: NOW,
  });
  const project = await stores.projects.create({
    namespace_id: group.id, creator_id: 1, name: 'Attr Project', path: 'attr-project', description: '', default_branch: null,
    visibility: 'private', archived: false, issues_enabled: true, merge_requests_enabled: true, wiki_enabled: true, jobs_enabled: true,
    snippets_enabled: true, container_registry_enabled: true, resolve_outdated_diff_discussions: false, shared_runners_enabled: true,
    public_jobs: true, request_access_enabled: false, only_allow_merge_if_pipeline_succeeds: false,
    only_allow_merge_if_all_discussions_are_resolved: false, printing_merge_requests_link_enabled: true, lfs_enabled: true, tag_list: [],
    forked_from_id: null, runners_token: 'runners-token-attr', import_status: 'none', import_error: null, avatar_url: null,
    ci_config_path: null, pending_delete: false, pending_instance_id: null, created_at: NOW, updated_at: NOW, last_activity_at: NOW,
  });
  return { userId: user.id, userToken, group, project };
}

describe('custom attributes', () => {
  let gantry: TestCoordinator;
  let subjects: Awaited<ReturnType<typeof seed>>;

  before(async () => {
    gantry = await startTestCoordinator();
    subjects = await seed(gantry);
  });
  after(() => gantry.close());

  const kinds = [
    { kind: 'users', notFound: '404 User Not Found', ref: () => String(subjects.userId), byName: () => 'attr-user' },
    { kind: 'groups', notFound: '404 Group Not Found', ref: () => String(subjects.group.id), byName: () => 'attr-group' },
    { kind: 'projects', notFound: '404 Project Not Found', ref: () => String(subjects.project.id), byName: () => encodeURIComponent('attr-group/attr-project') },
  ];

  for (const { kind, notFound, ref, byName } of kinds) {
    describe(kind, () => {
      it('creates, updates, lists, shows and deletes attributes', async () => {
        const base = `/${kind}/${ref()}/custom_attributes`;
        assert.deepEqual((await gantry.api('GET', base)).body, []);

        const created = await gantry.api('PUT', `${base}/team`, { body: { value: 'blue' } });
        assert.equal(created.status, 200);
        assert.deepEqual(created.body, { key: 'team', value: 'blue' });
        const updated = await gantry.api('PUT', `${base}/team`, { form: { value: 'green' } });
        assert.deepEqual(updated.body, { key: 'team', value: 'green' });
        await gantry.api('PUT', `${base}/env`, { body: { value: 'prod' } });

        const listed = await gantry.api('GET', base);
        assert.equal(listed.status, 200);
        assert.deepEqual(listed.body, [{ key: 'env', value: 'prod' }, { key: 'team', value: 'green' }]);
        assert.deepEqual((await gantry.api('GET', `${base}/team`)).body, { key: 'team', value: 'green' });

        const deleted = await gantry.api('DELETE', `${base}/team`);
        assert.equal(deleted.status, 204);
        assert.equal(deleted.text, '');
        const gone = await gantry.api('GET', `${base}/team`);
        assert.equal(gone.status, 404);
        assert.deepEqual(gone.body, { message: '404 Custom Attribute Not Found' });
        const again = await gantry.api('DELETE', `${base}/team`);
        assert.equal(again.status, 404);
        assert.deepEqual(again.body, { message: '404 Custom Attribute Not Found' });
        await gantry.api('DELETE', `${base}/env`);
      });

      it('resolves the subject by name or path as well as by id', async () => {
        const response = await gantry.api('PUT', `/${kind}/${byName()}/custom_attributes/by-name`, { body: { value: 'yes' } });
        assert.equal(response.status, 200, response.text);
        assert.deepEqual((await gantry.api('GET', `/${kind}/${ref()}/custom_attributes/by-name`)).body, { key: 'by-name', value: 'yes' });
        await gantry.api('DELETE', `/${kind}/${ref()}/custom_attributes/by-name`);
      });

      it('keeps attributes apart per subject', async () => {
        await gantry.api('PUT', `/${kind}/${ref()}/custom_attributes/scoped`, { body: { value: 'mine' } });
        const other = kind === 'users' ? '1' : null;
        if (other) assert.deepEqual((await gantry.api('GET', `/${kind}/${other}/custom_attributes`)).body, []);
        const listed = await gantry.api('GET', `/${kind}/${ref()}/custom_attributes`);
        assert.equal(listed.list.length, 1);
        assert.equal(listed.headers['x-total'], '1', 'lists carry pagination headers');
        await gantry.api('DELETE', `/${kind}/${ref()}/custom_attributes/scoped`);
      });

      it('answers 404 naming the subject for an unknown id or path', async () => {
        for (const missing of ['999999', encodeURIComponent('no/such/thing')]) {
          for (const [method, suffix] of [['GET', ''], ['GET', '/k'], ['DELETE', '/k']] as const) {
            const response = await gantry.api(method, `/${kind}/${missing}/custom_attributes${suffix}`);
            assert.equal(response.status, 404, `${method} ${missing}${suffix}`);
            assert.deepEqual(response.body, { message: notFound });
          }
          const put = await gantry.api('PUT', `/${kind}/${missing}/custom_attributes/k`, { body: { value: 'v' } });
          assert.deepEqual(put.body, { message: notFound });
        }
      });

      it('requires a value', async () => {
        const base = `/${kind}/${ref()}/custom_attributes/needs-value`;
        const missing = await gantry.api('PUT', base, { body: {} });
        assert.equal(missing.status, 400);
        assert.deepEqual(missing.body, { error: 'value is missing' });
        const nullValue = await gantry.api('PUT', base, { body: { value: null } });
        assert.deepEqual(nullValue.body, { error: 'value is missing' });
        const blank = await gantry.api('PUT', base, { body: { value: '  ' } });
        assert.equal(blank.status, 400);
        assert.deepEqual(blank.body, { message: { value: ["can't be blank"] } });
        const wrongType = await gantry.api('PUT', base, { body: { value: { nested: true } } });
        assert.equal(wrongType.status, 400);
        assert.deepEqual(wrongType.body, { error: 'value is invalid' });
        const tooLong = await gantry.api('PUT', base, { body: { value: 'x'.repeat(256) } });
        assert.deepEqual(tooLong.body, { message: { value: ['is too long (maximum is 255 characters)'] } });
        const nul = await gantry.api('PUT', base, { body: { value: 'a\u0000b' } });
        assert.equal(nul.status, 400);
        assert.equal((await gantry.api('GET', base)).status, 404, 'nothing stored');
      });

      it('is for administrators only', async () => {
        const base = `/${kind}/${ref()}/custom_attributes`;
        for (const [method, path, body] of [['GET', base, undefined], ['GET', `${base}/k`, undefined], ['PUT', `${base}/k`, { value: 'v' }], ['DELETE', `${base}/k`, undefined]] as const) {
          const anonymous = await gantry.api(method, path, { token: null, body });
          assert.equal(anonymous.status, 401, `${method} ${path} anonymous`);
          assert.deepEqual(anonymous.body, { message: '401 Unauthorized' });
          assert.equal((await gantry.api(method, path, { token: 'wrong-token', body })).status, 401);
          const plain = await gantry.api(method, path, { token: subjects.userToken, body });
          assert.equal(plain.status, 403, `${method} ${path} non-admin`);
          assert.deepEqual(plain.body, { message: '403 Forbidden' });
        }
        assert.equal((await gantry.api('GET', `${base}/k`)).status, 404, 'the refused PUT stored nothing');
      });
    });
  }
});
