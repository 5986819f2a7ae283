import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestUser } from './groups-fixtures.ts';
import { addMember, makeUser } from './groups-fixtures.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';

type Json = Record<string, unknown>;
const HEX40 = /^[0-9a-f]{40}$/;

describe('discussions (threads) on merge requests and issues', () => {
  let fx: MergeFixture;
  let project: { id: number; path: string; gitDir: string };
  let reporter: TestUser;
  let branches = 0;
  const mr = (iid: number, suffix = '') => `/projects/${project.id}/merge_requests/${iid}/discussions${suffix}`;
  /** A request opened through the API by the fixture's developer, so that its diff refs are set. */
  const openRequest = async (): Promise<Json> => {
    branches += 1;
    const branch = `topic-${branches}`;
    await fx.commit(project.id, branch, { [`${branch}.txt`]: 'one\ntwo\nthree\n' }, { startBranch: 'main' });
    const opened = await fx.gantry.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: branch, target_branch: 'main', title: `Change ${branch}` }, token: fx.developer.token });
    assert.equal(opened.status, 201, opened.text);
    // The create answer is written before the refresh records the diff refs; a read has them.
    return (await fx.gantry.api('GET', `/projects/${project.id}/merge_requests/${String(opened.json.iid)}`)).json;
  };
  const post = async (path: string, body: Json, token?: string | null) => fx.gantry.api('POST', path, { body, token: token === undefined ? fx.developer.token : token });

  before(async () => {
    fx = await startMergeFixture('threads');
    project = await fx.project('app');
    reporter = await makeUser(fx.gantry, 'threads-reporter');
    await addMember(fx.gantry, { type: 'namespace', id: fx.groupId }, reporter.id, 20);
  });
  after(() => fx.close());

  it('shows a plain note as an individual-note thread and turns it into a thread when replied to', async () => {
    const request = await openRequest();
    const note = await post(`/projects/${project.id}/merge_requests/${request.iid}/notes`, { body: 'A plain comment' }, reporter.token);
    assert.equal(note.status, 201, note.text);
    const listed = await fx.gantry.api('GET', mr(Number(request.iid)), { token: reporter.token });
    assert.equal(listed.status, 200, listed.text);
    const individual = listed.list.find((thread) => (thread.notes as Json[]).some((entry) => entry.id === note.json.id));
    assert.ok(individual, listed.text);
    assert.match(String(individual.id), HEX40);
    assert.equal(individual.individual_note, true);
    assert.deepEqual((individual.notes as Json[]).map((entry) => [entry.type, entry.resolvable]), [[null, false]]);

    const reply = await post(mr(Number(request.iid), `/${individual.id}/notes`), { body: 'A reply' });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual([reply.json.type, reply.json.resolvable, reply.json.resolved, reply.json.resolved_by], ['DiscussionNote', true, false, null]);
    const thread = await fx.gantry.api('GET', mr(Number(request.iid), `/${individual.id}`));
    assert.equal(thread.json.individual_note, false);
    assert.deepEqual((thread.json.notes as Json[]).map((entry) => [entry.body, entry.type]), [['A plain comment', 'DiscussionNote'], ['A reply', 'DiscussionNote']]);
    assert.equal(listed.headers['x-total'], String(listed.list.length));

    const unknown = await fx.gantry.api('GET', mr(Number(request.iid), `/${'a'.repeat(40)}`));
    assert.deepEqual([unknown.status, unknown.json], [404, { message: '404 Discussion Not Found' }]);
    const unknownReply = await post(mr(Number(request.iid), `/${'a'.repeat(40)}/notes`), { body: 'to nobody' });
    assert.deepEqual([unknownReply.status, unknownReply.json], [404, { message: '404 Discussion Not Found' }]);
  });

  it('starts a resolvable thread; its author and Developers resolve it, a Reporter may not; notes resolve one by one', async () => {
    const request = await openRequest();
    const iid = Number(request.iid);
    const started = await post(mr(iid), { body: 'Please rename this' }, fx.maintainer.token);
    assert.equal(started.status, 201, started.text);
    assert.match(String(started.json.id), HEX40);
    assert.equal(started.json.individual_note, false);
    const [first] = started.json.notes as Json[];
    assert.deepEqual([first!.type, first!.resolvable, first!.resolved, first!.noteable_type], ['DiscussionNote', true, false, 'MergeRequest']);
    const threadId = String(started.json.id);

    const byReporter = await fx.gantry.api('PUT', mr(iid, `/${threadId}?resolved=true`), { token: reporter.token });
    assert.deepEqual([byReporter.status, byReporter.json], [403, { message: '403 Forbidden' }]);
    const byAuthor = await fx.gantry.api('PUT', mr(iid, `/${threadId}?resolved=true`), { token: fx.developer.token });
    assert.equal(byAuthor.status, 200, byAuthor.text);
    const resolvedNote = (byAuthor.json.notes as Json[])[0]!;
    assert.equal(resolvedNote.resolved, true);
    assert.equal((resolvedNote.resolved_by as Json).username, fx.developer.username);
    assert.ok(resolvedNote.resolved_at);

    const noteUrl = mr(iid, `/${threadId}/notes/${String(first!.id)}`);
    const unresolved = await fx.gantry.api('PUT', noteUrl, { body: { resolved: false }, token: fx.maintainer.token });
    assert.deepEqual([unresolved.status, unresolved.json.resolved, unresolved.json.resolved_by, unresolved.json.resolved_at], [200, false, null, null]);
    const both = await fx.gantry.api('PUT', noteUrl, { body: { resolved: true, body: 'x' }, token: fx.maintainer.token });
    assert.equal(both.status, 400, both.text);
    const neither = await fx.gantry.api('PUT', noteUrl, { body: {}, token: fx.maintainer.token });
    assert.equal(neither.status, 400, neither.text);
    const edited = await fx.gantry.api('PUT', noteUrl, { body: { body: 'Please rename this, thanks' }, token: fx.maintainer.token });
    assert.deepEqual([edited.status, edited.json.body], [200, 'Please rename this, thanks']);

    const plain = await post(`/projects/${project.id}/merge_requests/${iid}/notes`, { body: 'plain' });
    const elsewhere = await fx.gantry.api('PUT', mr(iid, `/${threadId}/notes/${String(plain.json.id)}`), { body: { resolved: true } });
    assert.deepEqual([elsewhere.status, elsewhere.json], [404, { message: '404 Note Not Found' }], 'a note of another thread');
    const read = await fx.gantry.api('GET', noteUrl, { token: reporter.token });
    assert.deepEqual([read.status, read.json.id, read.json.body, read.json.resolved], [200, first!.id, 'Please rename this, thanks', false]);
    const readElsewhere = await fx.gantry.api('GET', mr(iid, `/${threadId}/notes/${String(plain.json.id)}`));
    assert.deepEqual([readElsewhere.status, readElsewhere.json], [404, { message: '404 Note Not Found' }], 'a note of another thread is not read through this one');
    const plainThread = (await fx.gantry.api('GET', mr(iid))).list.find((thread) => (thread.notes as Json[])[0]!.id === plain.json.id)!;
    const plainResolve = await fx.gantry.api('PUT', mr(iid, `/${String(plainThread.id)}/notes/${String(plain.json.id)}`), { body: { resolved: true } });
    assert.deepEqual([plainResolve.status, plainResolve.json], [400, { message: '400 Bad request - Note is not resolvable' }]);

    const removed = await fx.gantry.api('DELETE', noteUrl, { token: fx.maintainer.token });
    assert.equal(removed.status, 204);
    const gone = await fx.gantry.api('GET', mr(iid, `/${threadId}`));
    assert.equal(gone.status, 404);
  });

  it("creates a DiffNote on the request's diff refs, refuses stale ones, and replies in its thread as DiffNotes", async () => {
    const request = await openRequest();
    const iid = Number(request.iid);
    const refs = request.diff_refs as { base_sha: string; start_sha: string; head_sha: string };
    assert.ok(refs, 'an opened request has diff refs');
    const position = { position_type: 'text', ...refs, new_path: `topic-${branches}.txt`, old_path: `topic-${branches}.txt`, new_line: 2 };
    const inline = await post(mr(iid), { body: 'Inline remark', position });
    assert.equal(inline.status, 201, inline.text);
    const [note] = inline.json.notes as Json[];
    assert.equal(note!.type, 'DiffNote');
    assert.deepEqual(note!.position, { ...refs, position_type: 'text', old_path: position.old_path, new_path: position.new_path, old_line: null, new_line: 2, line_range: null });
    assert.equal(note!.resolvable, true);

    const reply = await post(mr(iid, `/${String(inline.json.id)}/notes`), { body: 'Agreed' });
    assert.deepEqual([reply.status, reply.json.type], [201, 'DiffNote']);

    const stale = await post(mr(iid), { body: 'On an old diff', position: { ...position, head_sha: 'b'.repeat(40) } });
    assert.equal(stale.status, 400, stale.text);
    assert.match(String(stale.json.message), /^400 Bad request - Note .*diff refs/);
    const lineless = await post(mr(iid), { body: 'Nowhere', position: { position_type: 'text', ...refs, new_path: 'x.txt' } });
    assert.equal(lineless.status, 400, lineless.text);
    const image = await post(mr(iid), { body: 'A picture', position: { ...position, position_type: 'image' } });
    assert.equal(image.status, 400, image.text);
  });

  it("refuses a DiffNote whose line is not in the file's diff, as GitLab's blank line_code, and unfolds unchanged lines outside the hunks", async () => {
    const lines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}\n`);
    await fx.commit(project.id, 'main', { 'long.txt': lines(12).join('') });
    const changed = lines(12);
    changed.splice(7, 1, 'line 8 changed\n', 'inserted\n');
    await fx.commit(project.id, 'long-topic', { 'long.txt': changed.join('') }, { startBranch: 'main' });
    const opened = await fx.gantry.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: 'long-topic', target_branch: 'main', title: 'Long file' }, token: fx.developer.token });
    assert.equal(opened.status, 201, opened.text);
    const iid = Number(opened.json.iid);
    const refs = (await fx.gantry.api('GET', `/projects/${project.id}/merge_requests/${iid}`)).json.diff_refs as Record<string, string>;
    const at = (lineNumbers: { old_line?: number; new_line?: number }, path = 'long.txt') => post(mr(iid), { body: 'Here', position: { position_type: 'text', ...refs, old_path: path, new_path: path, ...lineNumbers } });
    // The hunk is old lines 5-11 (8 replaced by two lines): added, removed and context lines by their numbers.
    for (const accepted of [{ new_line: 8 }, { new_line: 9 }, { old_line: 8 }, { old_line: 7, new_line: 7 }, { old_line: 2, new_line: 2 }, { old_line: 12, new_line: 13 }]) {
      const answer = await at(accepted);
      assert.equal(answer.status, 201, `${JSON.stringify(accepted)}: ${answer.text}`);
    }
    for (const refused of [{ new_line: 99 }, { new_line: 2 }, { old_line: 8, new_line: 8 }, { old_line: 12, new_line: 12 }, { old_line: 20, new_line: 21 }]) {
      const answer = await at(refused);
      assert.equal(answer.status, 400, `${JSON.stringify(refused)}: ${answer.text}`);
      assert.equal(answer.json.message, `400 Bad request - Note {:line_code=>["can't be blank", "must be a valid line code"]}`);
    }
    // A file the request does not change has no diff to comment on.
    assert.equal((await at({ old_line: 1, new_line: 1 }, 'README.md')).status, 400);
  });

  it('threads on issues: start, reply, list; a system note cannot be replied to; issues have no resolve route', async () => {
    const issue = await fx.gantry.api('POST', `/projects/${project.id}/issues`, { body: { title: 'Threaded issue' }, token: fx.developer.token });
    const base = `/projects/${project.id}/issues/${String(issue.json.iid)}/discussions`;
    const started = await post(base, { body: 'Question' }, reporter.token);
    assert.equal(started.status, 201, started.text);
    const [first] = started.json.notes as Json[];
    assert.deepEqual([first!.type, first!.resolvable, first!.noteable_type, 'resolved' in first!], ['DiscussionNote', false, 'Issue', false]);
    const answer = await post(`${base}/${String(started.json.id)}/notes`, { body: 'Answer' });
    assert.equal(answer.status, 201, answer.text);
    await fx.gantry.api('PUT', `/projects/${project.id}/issues/${String(issue.json.iid)}`, { body: { state_event: 'close' }, token: fx.developer.token });
    const threads = await fx.gantry.api('GET', base);
    assert.deepEqual(threads.list.map((thread) => (thread.notes as Json[]).map((entry) => entry.body)).slice(0, 1), [['Question', 'Answer']]);
    const systemThread = threads.list.find((thread) => (thread.notes as Json[])[0]!.system === true);
    assert.ok(systemThread, 'closing wrote a system note, an individual thread');
    const toSystem = await post(`${base}/${String(systemThread.id)}/notes`, { body: 'hm' });
    assert.deepEqual([toSystem.status, toSystem.json], [400, { message: '400 Bad request - Discussion can not be replied to.' }]);
    const resolve = await fx.gantry.api('PUT', `${base}/${String(started.json.id)}?resolved=true`);
    assert.equal(resolve.status, 404);
    const answerUrl = `${base}/${String(started.json.id)}/notes/${String(answer.json.id)}`;
    const read = await fx.gantry.api('GET', answerUrl, { token: reporter.token });
    assert.deepEqual([read.status, read.json.id, read.json.body, read.json.type], [200, answer.json.id, 'Answer', 'DiscussionNote']);
    assert.equal((await fx.gantry.api('GET', answerUrl, { token: null })).status, 401);
    const removed = await fx.gantry.api('DELETE', answerUrl);
    assert.equal(removed.status, 204, removed.text);
    const anonymous = await fx.gantry.api('GET', base, { token: null });
    assert.equal(anonymous.status, 401);
  });
  it('only_allow_merge_if_all_discussions_are_resolved: an unresolved thread blocks the merge (405) until resolved; commenters are participants', async () => {
    const request = await openRequest();
    const iid = Number(request.iid);
    const single = `/projects/${project.id}/merge_requests/${iid}`;
    const thread = await post(mr(iid), { body: 'Blocking question' }, reporter.token);
    assert.equal(thread.status, 201, thread.text);
    const shown = await fx.gantry.api('GET', single);
    assert.deepEqual([shown.json.blocking_discussions_resolved, shown.json.user_notes_count], [true, 1], 'the project does not require resolved threads yet');
    const participants = await fx.gantry.api('GET', `${single}/participants`);
    assert.deepEqual(participants.list.map((user) => user.username).sort(), [fx.developer.username, reporter.username].sort());

    const setting = await fx.gantry.api('PUT', `/projects/${project.id}`, { body: { only_allow_merge_if_all_discussions_are_resolved: true }, token: fx.maintainer.token });
    assert.equal(setting.status, 200, setting.text);
    try {
      let status = '';
      await waitUntil(async () => {
        const now = await fx.gantry.api('GET', single);
        status = String(now.json.detailed_merge_status);
        return status === 'discussions_not_resolved' && now.json.blocking_discussions_resolved === false;
      }, 'the request to show its unresolved thread', { timeoutMs: 30_000, explain: () => status });
      const listed = await fx.gantry.api('GET', `/projects/${project.id}/merge_requests?iids[]=${iid}`);
      assert.equal(listed.list[0]!.blocking_discussions_resolved, false);
      const refused = await fx.merge(project.id, iid, {}, fx.maintainer.token);
      assert.deepEqual([refused.status, refused.json], [405, { message: '405 Method Not Allowed' }]);

      const resolved = await fx.gantry.api('PUT', mr(iid, `/${String(thread.json.id)}`), { body: { resolved: true }, token: fx.maintainer.token });
      assert.equal(resolved.status, 200, resolved.text);
      const after = await fx.gantry.api('GET', single);
      assert.equal(after.json.blocking_discussions_resolved, true);
      const merged = await fx.merge(project.id, iid, {}, fx.maintainer.token);
      assert.deepEqual([merged.status, merged.json.state], [200, 'merged'], merged.text);
    } finally {
      await fx.gantry.api('PUT', `/projects/${project.id}`, { body: { only_allow_merge_if_all_discussions_are_resolved: false }, token: fx.maintainer.token });
    }
  });
});
