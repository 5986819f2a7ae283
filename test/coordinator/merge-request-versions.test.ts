import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitFileAction } from '../../src/storage/git/types.ts';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

type Json = Record<string, unknown>;
const VERSION_FIELDS = ['base_commit_sha', 'created_at', 'head_commit_sha', 'id', 'merge_request_id', 'patch_id_sha', 'real_size', 'start_commit_sha', 'state'];

/** `GET .../merge_requests/:iid/versions[/:version_id]`: a version of the diff per refresh that moved its refs (GitLab's MergeRequestDiffs API). */
describe('merge request diff versions', () => {
  let fixture: MergeRequestFixture;
  let topic: Json;
  let firstTip: string;
  let secondTip: string;
  const url = (iid: unknown, tail = '') => `/projects/${fixture.project.id}/merge_requests/${String(iid)}/versions${tail}`;
  const api = (path: string, token?: string) => fixture.gantry.api('GET', path, { token });

  async function commit(branch: string, file: string, token?: string): Promise<string> {
    const body = { branch, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }] };
    const answer = await fixture.gantry.api('POST', `/projects/${fixture.project.id}/repository/commits`, { body, token });
    assert.equal(answer.status, 201, answer.text);
    return String(answer.json.id);
  }
  async function versions(iid: unknown): Promise<Json[]> {
    const answer = await api(url(iid));
    assert.equal(answer.status, 200, answer.text);
    return answer.list;
  }
  async function request(iid: unknown): Promise<Json> {
    return (await api(`/projects/${fixture.project.id}/merge_requests/${String(iid)}`)).json;
  }

  before(async () => {
    fixture = await startMergeRequestFixture();
    firstTip = await fixture.branch('topic');
    topic = await fixture.open({ source_branch: 'topic', target_branch: 'main', title: 'Topic' });
  });
  after(() => fixture.close());

  it('records the first version when the request is opened, with its diff refs', async () => {
    const answer = await api(url(topic.iid));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers['x-total'], '1');
    const [version] = answer.list;
    assert.deepEqual(Object.keys(version!).sort(), VERSION_FIELDS);
    const refs = topic.diff_refs as Json;
    assert.equal(version!.head_commit_sha, firstTip);
    assert.deepEqual([version!.head_commit_sha, version!.base_commit_sha, version!.start_commit_sha], [refs.head_sha, refs.base_sha, refs.start_sha]);
    assert.equal(version!.merge_request_id, topic.id);
    assert.equal(version!.state, 'collected');
    assert.equal(version!.real_size, '1');
    assert.equal(version!.patch_id_sha, null);
    assert.match(String(version!.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('a push to the source branch is a new version, listed first; the list pages', async () => {
    secondTip = await commit('topic', 'second.txt');
    const [newest, oldest] = await versions(topic.iid);
    assert.equal(newest!.head_commit_sha, secondTip);
    assert.equal(newest!.real_size, '2');
    assert.equal(oldest!.head_commit_sha, firstTip);
    assert.ok(Number(newest!.id) > Number(oldest!.id));
    assert.equal((await request(topic.iid)).sha, secondTip);
    const second = await api(`${url(topic.iid)}?per_page=1&page=2`);
    assert.equal(second.status, 200);
    assert.deepEqual(second.list.map((version) => version.id), [oldest!.id]);
    assert.equal(second.headers['x-total'], '2');
    assert.equal(second.headers['x-total-pages'], '2');
    assert.equal(second.headers['x-prev-page'], '1');
    assert.match(String(second.headers.link), /rel="first"/);
  });

  it('one version: its fields, its commits newest first and its own diffs', async () => {
    const [newest, oldest] = await versions(topic.iid);
    const latest = await api(url(topic.iid, `/${String(newest!.id)}`));
    assert.equal(latest.status, 200, latest.text);
    assert.match(String(latest.headers['content-type']), /application\/json/);
    const full = latest.json;
    assert.deepEqual(Object.keys(full).sort(), [...VERSION_FIELDS, 'commits', 'diffs'].sort());
    for (const field of VERSION_FIELDS) assert.deepEqual(full[field], newest![field], field);
    const commits = full.commits as Json[];
    assert.deepEqual(commits.map((c) => c.id), [secondTip, firstTip]);
    assert.equal(commits[0]!.title, 'add second.txt');
    assert.match(String(commits[0]!.web_url), new RegExp(`/-/commit/${secondTip}$`));
    const diffs = full.diffs as Json[];
    assert.deepEqual(diffs.map((d) => d.new_path).sort(), ['second.txt', 'topic.txt']);
    const added = diffs.find((d) => d.new_path === 'second.txt')!;
    assert.equal(added.new_file, true);
    assert.match(String(added.diff), /\+second\.txt/);

    const first = (await api(url(topic.iid, `/${String(oldest!.id)}`))).json;
    assert.deepEqual((first.commits as Json[]).map((c) => c.id), [firstTip]);
    assert.deepEqual((first.diffs as Json[]).map((d) => d.new_path), ['topic.txt']);
  });

  it('a reopen with the same refs and a push to the target branch (which leaves the diff) make no version; a retarget does', async () => {
    // Closed and reopened with the same refs: the diff was read again, but it is the same version.
    for (const stateEvent of ['close', 'reopen']) {
      const saved = await fixture.gantry.api('PUT', `/projects/${fixture.project.id}/merge_requests/${String(topic.iid)}`, { body: { state_event: stateEvent } });
      assert.equal(saved.status, 200, saved.text);
    }
    assert.equal((await versions(topic.iid)).length, 2);
    await commit('main', 'elsewhere.txt', fixture.maintainer.token);
    assert.equal((await versions(topic.iid)).length, 2);
    const releaseTip = await fixture.branch('release');
    const retargeted = await fixture.gantry.api('PUT', `/projects/${fixture.project.id}/merge_requests/${String(topic.iid)}`, { body: { target_branch: 'release' } });
    assert.equal(retargeted.status, 200, retargeted.text);
    const [newest] = await versions(topic.iid);
    assert.equal(newest!.start_commit_sha, releaseTip);
    assert.equal(newest!.head_commit_sha, secondTip);
    assert.deepEqual((retargeted.json.diff_refs as Json).start_sha, releaseTip);
    assert.equal((await versions(topic.iid)).length, 3);
  });

  it('a request with nothing to merge has an empty version, without real_size', async () => {
    const branched = await fixture.gantry.api('POST', `/projects/${fixture.project.id}/repository/branches`, { body: { branch: 'idle', ref: 'main' } });
    assert.equal(branched.status, 201, branched.text);
    const idle = await fixture.open({ source_branch: 'idle', target_branch: 'main', title: 'Idle' });
    const [version] = await versions(idle.iid);
    assert.deepEqual([version!.state, version!.real_size], ['empty', null]);
    const full = (await api(url(idle.iid, `/${String(version!.id)}`))).json;
    assert.deepEqual([full.commits, full.diffs], [[], []]);
  });

  it('more files than the diff limit: overflow and "1000+"', async () => {
    const repository = fixture.gantry.coordinator.context.repositories.open(fixture.project.id);
    const many: GitFileAction[] = Array.from({ length: 1001 }, (_unused, index) => ({ action: 'create' as const, file_path: `many/f${index}.txt`, content: Buffer.from(`${index}\n`) }));
    await repository.commitFiles({ branch: 'big', startRef: 'main', message: 'many files', author: { name: 'A', email: 'a@example.com' }, actions: many });
    const big = await fixture.open({ source_branch: 'big', target_branch: 'main', title: 'Big' });
    const [version] = await versions(big.iid);
    assert.deepEqual([version!.state, version!.real_size], ['overflow', '1000+']);
  });

  it('a version left by the migration without state is read from git once, then kept', async () => {
    const { stores } = fixture.gantry.coordinator.context;
    const record = (await stores.mergeRequests.findByIid(fixture.project.id, Number(topic.iid)))!;
    const added = await stores.mergeRequestDiffVersions.add({
      merge_request_id: record.id, head_commit_sha: firstTip, base_commit_sha: record.base_sha, start_commit_sha: record.start_sha!, state: null, real_size: null, created_at: record.updated_at,
    });
    const [listed] = await versions(topic.iid);
    assert.deepEqual([listed!.id, listed!.state, listed!.real_size], [added.id, 'collected', '1']);
    const stored = await stores.mergeRequestDiffVersions.find(record.id, added.id);
    assert.deepEqual([stored!.state, stored!.real_size], ['collected', '1']);
  });

  it('404 Not found for an unknown version or one of another request; the request and the project as the other merge request routes', async () => {
    const other = await fixture.open({ source_branch: 'release', target_branch: 'main', title: 'Release' });
    const [otherVersion] = await versions(other.iid);
    for (const versionId of [otherVersion!.id, 999999]) {
      const answer = await api(url(topic.iid, `/${String(versionId)}`));
      assert.equal(answer.status, 404, String(versionId));
      assert.deepEqual(answer.json, { message: '404 Not found' });
    }
    assert.deepEqual((await api(url(999))).json, { message: '404 Merge Request Not Found' });
    const [version] = await versions(topic.iid);
    for (const path of [url(topic.iid), url(topic.iid, `/${String(version!.id)}`)]) {
      const hidden = await api(path, fixture.stranger.token);
      assert.equal(hidden.status, 404);
      assert.deepEqual(hidden.json, { message: '404 Project Not Found' });
      assert.equal((await api(path, fixture.reporter.token)).status, 200);
    }
    const malformed = await api(url(topic.iid, '/abc'));
    assert.equal(malformed.status, 400);
    assert.deepEqual(malformed.json, { error: 'version_id is invalid' });
  });
});
