import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { MergeRequestChangesCount } from '../../src/coordinator/services/planning/merge-requests/changes.ts';
import type { GitFileAction, GitRepository } from '../../src/storage/git/types.ts';
import type { MergeRequestRecord } from '../../src/storage/types-merge-requests.ts';
import type { ProjectRecord, UserRecord } from '../../src/storage/types.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

const AUTHOR = { name: 'Ann Author', email: 'ann@example.com' };
const text = (value: string): Buffer => Buffer.from(value);

describe('merge request changes, diffs and commits from git', () => {
  let gantry: TestCoordinator;
  let app: ProjectRecord;
  let repository: GitRepository;
  let root: UserRecord;
  let outsider: TestUser;
  let topic: MergeRequestRecord;
  let big: MergeRequestRecord;
  const url = (request: MergeRequestRecord, tail: string) => `/projects/${app.id}/merge_requests/${request.iid}/${tail}`;

  async function commit(branch: string, message: string, actions: GitFileAction[], startRef?: string): Promise<string> {
    return (await repository.commitFiles({ branch, startRef, message, author: AUTHOR, actions })).id;
  }

  async function open(sourceBranch: string): Promise<MergeRequestRecord> {
    const { stores } = gantry.coordinator.context;
    const record = await stores.mergeRequests.create(
      { project_id: app.id, source_project_id: app.id, source_branch: sourceBranch, target_branch: 'main', author_id: root.id, title: `Draft: ${sourceBranch}`, description: null, state: 'opened', created_at: new Date().toISOString() },
      {},
    );
    await ciServicesOf(gantry.coordinator).mergeRequestRefresher.mergeRequestSaved({ project: app, actor: root, before: null, after: { record, labels: [], assigneeIds: [], reviewerIds: [] }, at: record.created_at });
    return (await stores.mergeRequests.findByIid(app.id, record.iid))!;
  }

  before(async () => {
    gantry = await startTestCoordinator();
    const group = await makeGroup(gantry, 'diffs');
    app = await makeProjectWithRepository(gantry, group.id, 'app', { withReadme: true });
    repository = gantry.coordinator.context.repositories.open(app.id);
    root = (await gantry.coordinator.context.stores.users.findById(1))!;
    outsider = await makeUser(gantry, 'outsider');
    const moved = 'a file that moves\n'.repeat(20);
    await commit('main', 'Base files', [
      { action: 'create', file_path: 'a.txt', content: text('one\ntwo\nthree\n') },
      { action: 'create', file_path: 'b.txt', content: text('to be deleted\n') },
      { action: 'create', file_path: 'old.txt', content: text(moved) },
      { action: 'create', file_path: 'image.bin', content: Buffer.from([0, 1, 2, 3, 0, 255]) },
    ]);
    await commit('topic', 'Edit a and drop b', [
      { action: 'update', file_path: 'a.txt', content: text('one\n2\nthree\n') },
      { action: 'delete', file_path: 'b.txt' },
    ], 'main');
    await commit('topic', 'Rename, add, binary', [
      { action: 'move', file_path: 'new.txt', previous_path: 'old.txt' },
      { action: 'create', file_path: 'c.txt', content: text('sea\n') },
      { action: 'update', file_path: 'image.bin', content: Buffer.from([0, 9, 9, 9, 0, 254]) },
    ]);
    topic = await open('topic');
    const many: GitFileAction[] = Array.from({ length: 1001 }, (_unused, index) => ({ action: 'create' as const, file_path: `many/f${index}.txt`, content: text(`${index}\n`) }));
    await commit('big', 'A thousand and one files', many, 'main');
    big = await open('big');
  });
  after(() => gantry.close());

  it('GET changes: the diff base..head with renames, deletions, new and binary files; changes_count; diff_refs', async () => {
    const answer = await gantry.api('GET', url(topic, 'changes'));
    assert.equal(answer.status, 200, answer.text);
    const json = answer.json;
    assert.equal(json.iid, topic.iid);
    assert.equal(json.changes_count, '5');
    assert.equal(json.overflow, false);
    assert.equal(json.sha, topic.head_sha);
    assert.deepEqual(json.diff_refs, { base_sha: topic.base_sha, head_sha: topic.head_sha, start_sha: topic.start_sha });
    const changes = json.changes as Array<Record<string, unknown>>;
    const byPath = new Map(changes.map((change) => [change.new_path, change]));
    assert.deepEqual([...byPath.keys()].sort(), ['a.txt', 'b.txt', 'c.txt', 'image.bin', 'new.txt']);
    assert.match(String(byPath.get('a.txt')!.diff), /-two\n\+2\n/);
    assert.equal(byPath.get('b.txt')!.deleted_file, true);
    assert.equal(byPath.get('c.txt')!.new_file, true);
    assert.equal(byPath.get('new.txt')!.renamed_file, true);
    assert.equal(byPath.get('new.txt')!.old_path, 'old.txt');
    assert.match(String(byPath.get('image.bin')!.diff), /Binary files/);
    const raw = await gantry.api('GET', `${url(topic, 'changes')}?access_raw_diffs=true`);
    assert.equal(raw.status, 200);
    assert.equal((raw.json.changes as unknown[]).length, 5);
  });

  it('GET changes of a request with 1,001 files: changes_count "1000+", overflow, at most 1,000 files', async () => {
    const answer = await gantry.api('GET', url(big, 'changes'));
    assert.equal(answer.status, 200);
    assert.equal(answer.json.changes_count, '1000+');
    assert.equal(answer.json.overflow, true);
    assert.ok((answer.json.changes as unknown[]).length <= 1000);
  });

  it('GET commits: newest first, with GitLab commit fields', async () => {
    const answer = await gantry.api('GET', url(topic, 'commits'));
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.list.map((item) => item.title), ['Rename, add, binary', 'Edit a and drop b']);
    const [newest] = answer.list;
    assert.equal(newest!.id, topic.head_sha);
    assert.equal(newest!.short_id, topic.head_sha!.slice(0, 8));
    assert.equal(newest!.author_name, AUTHOR.name);
    assert.equal(newest!.author_email, AUTHOR.email);
    assert.equal(newest!.message, 'Rename, add, binary');
    assert.deepEqual(Object.keys(newest!).sort(), [
      'author_email', 'author_name', 'authored_date', 'committed_date', 'committer_email', 'committer_name', 'created_at', 'id', 'message', 'parent_ids', 'short_id', 'title', 'web_url',
    ]);
    assert.match(String(newest!.web_url), /\/diffs\/app\/-\/commit\/[0-9a-f]{40}$/);
    assert.equal(answer.headers['x-total'], '2');
  });

  it('GET diffs: a page of the diff with pagination headers', async () => {
    const answer = await gantry.api('GET', `${url(topic, 'diffs')}?per_page=2&page=2`);
    assert.equal(answer.status, 200);
    assert.equal(answer.list.length, 2);
    assert.equal(answer.headers['x-total'], '5');
    assert.equal(answer.headers['x-next-page'], '3');
  });

  it('answers 404 for an unknown iid, and for a caller who cannot read the project', async () => {
    for (const tail of ['changes', 'commits', 'diffs']) {
      const unknown = await gantry.api('GET', `/projects/${app.id}/merge_requests/999/${tail}`);
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.body, { message: '404 Merge Request Not Found' });
      const hidden = await gantry.api('GET', url(topic, tail), { token: outsider.token });
      assert.equal(hidden.status, 404);
    }
  });

  it('MergeRequestChangesCount.countFor gives the view its changes_count', async () => {
    const mergeRequestChangesCount = new MergeRequestChangesCount({ repositories: gantry.coordinator.context.repositories });
    assert.equal(await mergeRequestChangesCount.countFor(topic, app), '5');
    assert.equal(await mergeRequestChangesCount.countFor(big, app), '1000+');
    assert.equal(await mergeRequestChangesCount.countFor({ ...topic, head_sha: null }, app), null);
    const single = await gantry.api('GET', `/projects/${app.id}/merge_requests/${topic.iid}`);
    assert.equal(single.json.changes_count, '5', 'the single answer counts through it');
    assert.equal((await gantry.api('GET', `/projects/${app.id}/merge_requests/${big.iid}`)).json.changes_count, '1000+');
  });
});
