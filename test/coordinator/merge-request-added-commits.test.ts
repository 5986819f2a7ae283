import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMergeRequestFixture, type MergeRequestFixture } from './merge-requests-fixtures.ts';

/** The system note GitLab writes when a push adds commits to a request's source branch (SystemNotes::CommitService#add_commits). */
describe('merge request system note: added N commits', () => {
  let fixture: MergeRequestFixture;

  const commit = async (branch: string, message: string, file: string, token = fixture.developer.token) => {
    const body = { branch, commit_message: message, actions: [{ action: 'create', file_path: file, content: file }] };
    const answer = await fixture.gantry.api('POST', `/projects/${fixture.project.id}/repository/commits`, { body, token });
    assert.equal(answer.status, 201, answer.text);
    return String(answer.json.id);
  };
  const systemNotes = async (iid: number) => {
    const notes = await fixture.gantry.api('GET', `/projects/${fixture.project.id}/merge_requests/${iid}/notes?sort=asc`);
    return notes.list.filter((note) => note.system === true).map((note) => [note.body, (note.author as { username: string }).username]);
  };

  before(async () => {
    fixture = await startMergeRequestFixture();
  });
  after(() => fixture.close());

  it('notes each push to the source by its pusher, with the commits short id and escaped title; opening notes nothing', async () => {
    await fixture.branch('grow');
    const iid = Number((await fixture.open({ source_branch: 'grow', target_branch: 'main', title: 'Grow' })).iid);
    assert.deepEqual(await systemNotes(iid), []);
    const first = await commit('grow', 'Add <b>bold</b> & more', 'one.txt');
    assert.deepEqual(await systemNotes(iid), [[`added 1 commit\n\n<ul><li>${first.slice(0, 8)} - Add &lt;b&gt;bold&lt;/b&gt; &amp; more</li></ul>`, fixture.developer.username]]);
    const second = await commit('grow', 'Second', 'two.txt');
    assert.deepEqual((await systemNotes(iid)).at(-1), [`added 1 commit\n\n<ul><li>${second.slice(0, 8)} - Second</li></ul>`, fixture.developer.username]);
  });

  it('a push to the target branch adds no commit to the request', async () => {
    await fixture.branch('steady');
    const iid = Number((await fixture.open({ source_branch: 'steady', target_branch: 'main', title: 'Steady' })).iid);
    await commit('main', 'Elsewhere', 'main-only.txt', fixture.maintainer.token); // main is protected
    assert.deepEqual(await systemNotes(iid), []);
  });
});
