import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from '#deps/kysely';
import { LINK_ISSUES_TASK } from '../../src/coordinator/services/planning/merge-requests/issue-links.ts';
import { migrateToLatest } from '../../src/storage/sql/migrate.ts';
import { addMember, makeUser, type TestUser } from './groups-fixtures.ts';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';

/** `GET .../issues/:issue_iid/closed_by` and `.../related_merge_requests`, from the links written as requests are opened and edited. */
describe("an issue's merge requests (closed_by, related_merge_requests)", () => {
  let fixture: MergeFixture;
  let app: { id: number; path: string };
  let other: { id: number; path: string };
  let reporter: TestUser;
  const issueIids: Record<string, number> = {};

  const openRequest = async (projectId: number, branch: string, fields: Record<string, unknown>) => {
    const created = await fixture.gantry.api('POST', `/projects/${projectId}/merge_requests`, { body: { source_branch: branch, target_branch: 'main', title: `Merge ${branch}`, ...fields } });
    assert.equal(created.status, 201, created.text);
    return Number(created.json.iid);
  };
  const listed = async (kind: 'closed_by' | 'related_merge_requests', issue: string, token?: string) => {
    const answer = await fixture.gantry.api('GET', `/projects/${app.id}/issues/${issueIids[issue]}/${kind}`, { token });
    assert.equal(answer.status, 200, answer.text);
    return answer.list.map((request) => `${request.project_id === app.id ? 'app' : 'other'}!${request.iid}`);
  };

  /** Until no link task is pending or running (the coordinator's own worker runs them). */
  const linkTasksDone = async () => {
    const { db } = fixture.gantry.coordinator.context;
    const left = async () => (await db.selectFrom('tasks').select('id').where('kind', '=', LINK_ISSUES_TASK).where('status', 'in', ['pending', 'running']).execute()).length;
    for (let polls = 0; (await left()) > 0; polls++) {
      assert.ok(polls < 1_000, 'the link tasks finish');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  before(async () => {
    fixture = await startMergeFixture('issue-mrs');
    app = await fixture.project('app');
    other = await fixture.project('other');
    reporter = await makeUser(fixture.gantry, 'issue-mrs-reporter');
    await addMember(fixture.gantry, { type: 'project', id: app.id }, reporter.id, 20);
    for (const title of ['first', 'second', 'third', 'fourth']) {
      const created = await fixture.gantry.api('POST', `/projects/${app.id}/issues`, { body: { title } });
      assert.equal(created.status, 201, created.text);
      issueIids[title] = Number(created.json.iid);
    }
  });
  after(() => fixture.close());

  it('links closing phrases in the title, description and commits as closing, other references as related; edits relink', async () => {
    const { first, second, third } = issueIids as Record<string, number>;
    await fixture.commit(app.id, 'fixes', { 'fix.txt': 'fix\n' }, { startBranch: 'main', message: `Repair things\n\nFixes #${second}` });
    const iid = await openRequest(app.id, 'fixes', { description: `Closes #${first}, relates to #${third}` });

    assert.deepEqual(await listed('closed_by', 'first'), [`app!${iid}`]);
    assert.deepEqual(await listed('closed_by', 'second'), [`app!${iid}`], 'a closing commit message counts');
    assert.deepEqual(await listed('closed_by', 'third'), []);
    assert.deepEqual(await listed('related_merge_requests', 'third'), [`app!${iid}`]);
    assert.deepEqual(await listed('related_merge_requests', 'first'), [`app!${iid}`]);
    assert.deepEqual(await listed('related_merge_requests', 'fourth'), []);

    const counts = async () => {
      const issues = (await fixture.gantry.api('GET', `/projects/${app.id}/issues?order_by=created_at&sort=asc`)).list;
      const one = await fixture.gantry.api('GET', `/projects/${app.id}/issues/${first}`);
      return [issues.map((issue) => issue.merge_requests_count), one.json.merge_requests_count];
    };
    assert.deepEqual(await counts(), [[1, 1, 0, 0], 1], 'merge_requests_count counts the closing requests only');
    const shape = await fixture.gantry.api('GET', `/projects/${app.id}/issues/${first}/closed_by`);
    const request = shape.list[0]!;
    assert.equal(request.title, 'Merge fixes');
    assert.equal(request.source_branch, 'fixes');
    assert.equal(typeof request.web_url, 'string');
    assert.equal(shape.headers['x-total'], '1');

    const edited = await fixture.gantry.api('PUT', `/projects/${app.id}/merge_requests/${iid}`, { body: { description: `Only mentions #${first}` } });
    assert.equal(edited.status, 200, edited.text);
    assert.deepEqual(await listed('closed_by', 'first'), [], 'no closing phrase any more');
    assert.deepEqual(await listed('related_merge_requests', 'first'), [`app!${iid}`]);
    assert.deepEqual(await listed('related_merge_requests', 'third'), []);
    assert.deepEqual(await listed('closed_by', 'second'), [`app!${iid}`]);
    assert.deepEqual(await counts(), [[0, 1, 0, 0], 0]);
  });

  it('closes only into the default branch, reads other projects\' references, paginates, and lists only the requests the caller reads', async () => {
    const { fourth } = issueIids as Record<string, number>;
    await fixture.commit(app.id, 'dev', { 'dev.txt': 'dev\n' }, { startBranch: 'main' });
    await fixture.commit(app.id, 'into-dev', { 'into-dev.txt': 'x\n' }, { startBranch: 'dev' });
    const intoDev = await openRequest(app.id, 'into-dev', { target_branch: 'dev', description: `Closes #${fourth}` });
    await fixture.commit(other.id, 'cross', { 'cross.txt': 'x\n' }, { startBranch: 'main' });
    const cross = await openRequest(other.id, 'cross', { title: `Fixes ${app.path}#${fourth}` });
    await fixture.commit(other.id, 'sibling', { 'sibling.txt': 'x\n' }, { startBranch: 'main' });
    const sibling = await openRequest(other.id, 'sibling', { description: `See app#${fourth}` });

    assert.deepEqual(await listed('closed_by', 'fourth'), [`other!${cross}`]);
    assert.deepEqual(await listed('related_merge_requests', 'fourth'), [`other!${sibling}`, `other!${cross}`, `app!${intoDev}`], 'newest first');

    const page = await fixture.gantry.api('GET', `/projects/${app.id}/issues/${fourth}/related_merge_requests?per_page=2&page=2`);
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.list.map((request) => request.iid), [intoDev]);
    assert.equal(page.headers['x-total'], '3');

    assert.deepEqual(await listed('related_merge_requests', 'fourth', reporter.token), [`app!${intoDev}`], 'a Reporter of app alone does not read the private other project');
    assert.deepEqual(await listed('closed_by', 'fourth', reporter.token), []);
  });

  it('links a closing commit pushed to the source, through a task off the push', async () => {
    const issue = await fixture.gantry.api('POST', `/projects/${app.id}/issues`, { body: { title: 'fifth' } });
    issueIids.fifth = Number(issue.json.iid);
    await fixture.commit(app.id, 'pushed', { 'pushed.txt': 'x\n' }, { startBranch: 'main' });
    const iid = await openRequest(app.id, 'pushed', {});
    assert.deepEqual(await listed('closed_by', 'fifth'), []);
    await fixture.commit(app.id, 'pushed', { 'pushed.txt': 'y\n' }, { message: `Fixes #${issueIids.fifth}` });
    await linkTasksDone();
    assert.deepEqual(await listed('closed_by', 'fifth'), [`app!${iid}`]);
    assert.deepEqual(await listed('related_merge_requests', 'fifth'), [`app!${iid}`], 'a closing reference is related too');
  });

  it('links the requests opened before migration 045 through the task it queues, as their authors see the issues', async () => {
    const { third } = issueIids as Record<string, number>;
    await fixture.commit(app.id, 'older', { 'older.txt': 'x\n' }, { startBranch: 'main' });
    const older = await fixture.openRequest(app.id, 'older', { description: `Resolves #${third}` });
    assert.deepEqual(await listed('closed_by', 'third'), [], 'a request written around the services has no links');

    const { db, dialect } = fixture.gantry.coordinator.context;
    await db.schema.dropTable('merge_request_issue_links').execute();
    await sql`delete from kysely_migration where name = '045-merge-request-issue-links'`.execute(db);
    await migrateToLatest(db, dialect);
    await linkTasksDone();
    assert.deepEqual(await listed('closed_by', 'third'), [`app!${older.iid}`]);
    assert.deepEqual(await listed('related_merge_requests', 'first'), [`app!1`], 'the requests opened through the API are linked again too');

    await fixture.gantry.coordinator.context.stores.mergeRequestIssueLinks.replace(older.id, [{ issueId: 999_999, closes: true }]);
    assert.deepEqual(await listed('closed_by', 'third'), [], 'links replaced; an issue gone since it was read is left out, not an error');
  });

  it('answers 404 for an issue the caller may not see', async () => {
    const secret = await fixture.gantry.api('POST', `/projects/${app.id}/issues`, { body: { title: 'secret', confidential: true } });
    assert.equal(secret.status, 201, secret.text);
    const outsider = await makeUser(fixture.gantry, 'issue-mrs-outsider');
    const guest = await makeUser(fixture.gantry, 'issue-mrs-guest');
    await addMember(fixture.gantry, { type: 'project', id: app.id }, guest.id, 10);
    for (const kind of ['closed_by', 'related_merge_requests']) {
      assert.equal((await fixture.gantry.api('GET', `/projects/${app.id}/issues/${issueIids.first}/${kind}`, { token: outsider.token })).status, 404, 'a private project');
      assert.equal((await fixture.gantry.api('GET', `/projects/${app.id}/issues/${Number(secret.json.iid)}/${kind}`, { token: guest.token })).status, 404, 'a confidential issue to a Guest');
      assert.equal((await fixture.gantry.api('GET', `/projects/${app.id}/issues/${Number(secret.json.iid)}/${kind}`, { token: reporter.token })).status, 200, 'Reporters see confidential issues');
      assert.equal((await fixture.gantry.api('GET', `/projects/${app.id}/issues/999/${kind}`)).status, 404);
    }
  });
});
