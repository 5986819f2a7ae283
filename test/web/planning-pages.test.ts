import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIFF_MAX_FILES, DIFF_MAX_PATCH_BYTES } from '../../src/storage/git/diff-limits.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { PageClient } from './page-client.ts';

const AUTHOR = { name: 'Ann Author', email: 'ann@example.com' };

describe('web merge request and issue pages', () => {
  let gantry: TestCoordinator;
  let member: PageClient;
  let stranger: PageClient;
  let anonymous: PageClient;
  let mergeIid: number;
  let issueIid: number;
  let hiddenIid: number;
  let confidentialIid: number;
  let wideIid: number;

  async function project(path: string, visibility: 'public' | 'private'): Promise<number> {
    const created = await gantry.api('POST', '/projects', { body: { name: path, path, visibility, initialize_with_readme: true } });
    assert.equal(created.status, 201, created.text);
    return created.json.id as number;
  }

  before(async () => {
    gantry = await startTestCoordinator({ externalUrl: 'http://gantry.test' });
    const openId = await project('open', 'public');
    const hiddenId = await project('hidden', 'private');
    const user = await gantry.createUser('planner');
    await gantry.createUser('plan-stranger');
    assert.equal((await gantry.api('POST', `/projects/${openId}/members`, { body: { user_id: user.id, access_level: 30 } })).status, 201);
    const repository = gantry.coordinator.context.repositories.open(openId);
    await repository.commitFiles({
      branch: 'topic', startRef: 'main', message: 'Change things', author: AUTHOR,
      actions: [
        { action: 'create', file_path: 'src/<b>app</b>.ts', content: Buffer.from('export const answer = 42;\n') },
        { action: 'update', file_path: 'README.md', content: Buffer.from('# the open project\n\nchanged <script>alert(1)</script>\n') },
        { action: 'create', file_path: 'huge.txt', content: Buffer.from(`${'x'.repeat(80)}\n`.repeat(Math.ceil(DIFF_MAX_PATCH_BYTES / 81) + 10)) },
      ],
    });
    const label = await gantry.api('POST', `/projects/${openId}/labels`, { body: { name: 'needs <review>', color: '#ff0000' } });
    assert.equal(label.status, 201, label.text);
    const mergeRequest = await gantry.api('POST', `/projects/${openId}/merge_requests`, {
      body: { source_branch: 'topic', target_branch: 'main', title: 'Add <script>alert(1)</script> app', description: 'Does **this**.\n\n<img src=x onerror=alert(1)>', labels: 'needs <review>', assignee_id: user.id },
    });
    assert.equal(mergeRequest.status, 201, mergeRequest.text);
    mergeIid = mergeRequest.json.iid as number;
    assert.equal((await gantry.api('PUT', `/projects/${openId}/merge_requests/${mergeIid}`, { body: { add_labels: 'later' } })).status, 200);
    assert.equal((await gantry.api('POST', `/projects/${openId}/merge_requests/${mergeIid}/notes`, { body: { body: 'Looks _good_ <iframe>' } })).status, 201);
    const issue = await gantry.api('POST', `/projects/${openId}/issues`, { body: { title: 'Broken <b>thing</b>', description: '- one\n- two', labels: 'bug' } });
    assert.equal(issue.status, 201, issue.text);
    issueIid = issue.json.iid as number;
    const closed = await gantry.api('POST', `/projects/${openId}/issues`, { body: { title: 'Old issue' } });
    assert.equal((await gantry.api('PUT', `/projects/${openId}/issues/${closed.json.iid as number}`, { body: { state_event: 'close' } })).status, 200);
    assert.equal((await gantry.api('POST', `/projects/${openId}/issues/${issueIid}/notes`, { body: { body: 'Seen it too' } })).status, 201);
    assert.equal((await gantry.api('POST', `/projects/${openId}/issues/${issueIid}/notes`, { body: { body: 'Maintainers only: **internal**', internal: true } })).status, 201);
    assert.equal((await gantry.api('POST', `/projects/${openId}/merge_requests/${mergeIid}/notes`, { body: { body: 'Internal review remark', internal: true } })).status, 201);
    const secret = await gantry.api('POST', `/projects/${openId}/issues`, { body: { title: 'Security hole', confidential: true } });
    assert.equal(secret.status, 201, secret.text);
    confidentialIid = secret.json.iid as number;
    assert.equal((await gantry.api('PUT', `/projects/${openId}/issues/${issueIid}`, { body: { assignee_ids: [user.id] } })).status, 200);
    await gantry.coordinator.context.repositories.open(hiddenId).commitFiles({ branch: 'secret', startRef: 'main', message: 'Secret', author: AUTHOR, actions: [{ action: 'create', file_path: 's.txt', content: Buffer.from('s\n') }] });
    const hidden = await gantry.api('POST', `/projects/${hiddenId}/merge_requests`, { body: { source_branch: 'secret', target_branch: 'main', title: 'Hidden' } });
    assert.equal(hidden.status, 201, hidden.text);
    hiddenIid = hidden.json.iid as number;
    const many = Array.from({ length: DIFF_MAX_FILES + 1 }, (_, index) => ({ action: 'create' as const, file_path: `many/f${String(index + 1).padStart(4, '0')}.txt`, content: Buffer.from(`line ${index + 1}\n`) }));
    await repository.commitFiles({ branch: 'many', startRef: 'main', message: 'Many files', author: AUTHOR, actions: many });
    const wide = await gantry.api('POST', `/projects/${openId}/merge_requests`, { body: { source_branch: 'many', target_branch: 'main', title: 'Many files' } });
    assert.equal(wide.status, 201, wide.text);
    wideIid = wide.json.iid as number;
    member = await new PageClient(gantry).signIn('planner');
    stranger = await new PageClient(gantry).signIn('plan-stranger');
    anonymous = new PageClient(gantry);
  });
  after(() => gantry.close());

  it('lists merge requests by state, escaped, linking each', async () => {
    const open = await anonymous.get('/root/open/-/merge_requests');
    assert.equal(open.statusCode, 200, open.body);
    assert.match(open.body, new RegExp(`<a href="/root/open/-/merge_requests/${mergeIid}">!${mergeIid} Add &lt;script&gt;alert\\(1\\)&lt;/script&gt; app</a>`));
    assert.doesNotMatch(open.body, /<script>alert/);
    assert.match(open.body, /<li class="label">needs &lt;review&gt;<\/li>/);
    assert.match(open.body, /<a href="\/root\/open\/-\/merge_requests\?state=opened" aria-current="page">Open<\/a>/);
    const merged = await anonymous.get('/root/open/-/merge_requests?state=merged');
    assert.match(merged.body, /No merge requests to show/);
    assert.match((await anonymous.get('/root/open/-/merge_requests?state=all')).body, /Add &lt;script&gt;/);
  });

  it('shows a merge request: description rendered as sanitised Markdown, branches, status, labels, assignees, notes with the system\'s', async () => {
    const page = await member.get(`/root/open/-/merge_requests/${mergeIid}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<p>Does <strong>this<\/strong>\.<\/p>/);
    assert.match(page.body, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.doesNotMatch(page.body, /<img src=x/);
    assert.match(page.body, /merge <a class="sha" href="\/root\/open\/-\/tree\/topic">topic<\/a> into <a class="sha" href="\/root\/open\/-\/tree\/main">main<\/a>/);
    assert.match(page.body, /<dt>Merge status<\/dt><dd>(can be merged|not checked yet|being checked)/);
    assert.match(page.body, /<dt>Assignees<\/dt><dd>User planner \(@planner\)<\/dd>/);
    assert.match(page.body, /Looks <em>good<\/em> &lt;iframe&gt;/);
    assert.match(page.body, /<li class="system-note"><span class="muted">Administrator \(@root\)<\/span> <div class="markdown"><p>added ~\d+ label/, 'the label change\'s system note');
    assert.match(page.body, /Changes \(3\)/);
  });

  it('shows an anonymous visitor a public project\'s request with its notes, but no internal note', async () => {
    const page = await anonymous.get(`/root/open/-/merge_requests/${mergeIid}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /Looks <em>good<\/em> &lt;iframe&gt;/);
    assert.match(page.body, /<li class="system-note">/);
    assert.doesNotMatch(page.body, /Internal review remark|Sign in<\/a> to read/);
    assert.match((await member.get(`/root/open/-/merge_requests/${mergeIid}`)).body, /Internal review remark/, 'a Developer (Reporter and up) reads internal notes');
  });

  it('shows the changes per file, marking added and removed lines, a file over the patch limit as too large, escaped paths', async () => {
    const page = await member.get(`/root/open/-/merge_requests/${mergeIid}/diffs`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /Files 1 to 3 of 3/);
    assert.match(page.body, /src\/&lt;b&gt;app&lt;\/b&gt;\.ts<\/span> <span class="muted">added/);
    assert.match(page.body, /<span class="line added"><span class="visually-hidden">added <\/span>\+export const answer = 42;<\/span>/);
    assert.match(page.body, /<span class="line removed"><span class="visually-hidden">removed <\/span>-# open<\/span>/);
    assert.match(page.body, /\+changed &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(page.body, /huge\.txt<\/span> <span class="muted">added<\/span><\/h3>\n<p class="notice">This file is too large to show/);
    assert.ok(page.body.length < DIFF_MAX_PATCH_BYTES, 'the too-large patch is not in the page');
  });

  it('pages the changes 20 files at a time, counting from git\'s listing, and says where the diff stops at the file limit', async () => {
    const first = await member.get(`/root/open/-/merge_requests/${wideIid}/diffs`);
    assert.equal(first.statusCode, 200, first.body);
    assert.match(first.body, new RegExp(`Files 1 to 20 of ${DIFF_MAX_FILES}\\.`));
    assert.deepEqual([...first.body.matchAll(/<h3><span class="sha">(many\/f\d+\.txt)</g)].map((match) => match[1]), Array.from({ length: 20 }, (_, index) => `many/f${String(index + 1).padStart(4, '0')}.txt`));
    assert.match(first.body, /<span class="line added"><span class="visually-hidden">added <\/span>\+line 20<\/span>/);
    assert.match(first.body, /rel="next" href="[^"]*page=2"/);
    assert.doesNotMatch(first.body, /The diff stops here/);
    const second = await member.get(`/root/open/-/merge_requests/${wideIid}/diffs?page=2`);
    assert.match(second.body, new RegExp(`Files 21 to 40 of ${DIFF_MAX_FILES}\\.`));
    assert.match(second.body, /many\/f0021\.txt/);
    assert.doesNotMatch(second.body, /many\/f0020\.txt|many\/f0041\.txt/);
    const last = await member.get(`/root/open/-/merge_requests/${wideIid}/diffs?page=${DIFF_MAX_FILES / 20}`);
    assert.match(last.body, new RegExp(`Files ${DIFF_MAX_FILES - 19} to ${DIFF_MAX_FILES} of ${DIFF_MAX_FILES}\\.`));
    assert.match(last.body, /The diff stops here: it reached GitLab's diff limits/);
    assert.doesNotMatch(last.body, /rel="next"/);
    assert.doesNotMatch(last.body, /f1001\.txt/, 'the file past the limit is never shown');
    assert.match(last.body, /collapsed: the changes are too large to show here/, 'files past the safe limits are collapsed, as the API answers them');
  });

  it('lists the request\'s pipelines on its tab', async () => {
    const page = await member.get(`/root/open/-/merge_requests/${mergeIid}/pipelines`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h2>Pipelines<\/h2>\n<p>No pipelines to show\.<\/p>/);
    assert.match(page.body, new RegExp(`href="/root/open/-/merge_requests/${mergeIid}/pipelines" aria-current="page"`));
  });

  it('answers a private project\'s requests and issues with the same 404 page as a missing one', async () => {
    const missing = await stranger.get('/root/nothing/-/merge_requests/1');
    assert.equal(missing.statusCode, 404);
    for (const path of [`/root/hidden/-/merge_requests/${hiddenIid}`, `/root/hidden/-/merge_requests/${hiddenIid}/diffs`, '/root/hidden/-/merge_requests', '/root/hidden/-/issues', '/root/hidden/-/issues/1']) {
      const page = await stranger.get(path);
      assert.equal(page.statusCode, 404, path);
      assert.equal(page.body.replace(/<title>.*<\/title>/, ''), missing.body.replace(/<title>.*<\/title>/, ''));
    }
    // As GitLab's route_not_found: an anonymous visitor is asked to sign in first.
    const asked = await anonymous.get(`/root/hidden/-/merge_requests/${hiddenIid}`);
    assert.equal(asked.statusCode, 302);
    assert.equal(asked.headers.location, `/users/sign_in?redirect_to=${encodeURIComponent(`/root/hidden/-/merge_requests/${hiddenIid}`)}`);
    assert.equal((await member.get(`/root/open/-/merge_requests/999`)).statusCode, 404);
  });

  it('lists issues by state and shows one with its labels, assignees and notes', async () => {
    const list = await member.get('/root/open/-/issues');
    assert.equal(list.statusCode, 200, list.body);
    assert.match(list.body, new RegExp(`<a href="/root/open/-/issues/${issueIid}">#${issueIid} Broken &lt;b&gt;thing&lt;/b&gt;</a>`));
    assert.doesNotMatch(list.body, /Old issue/);
    assert.match((await member.get('/root/open/-/issues?state=closed')).body, /Old issue/);
    const page = await member.get(`/root/open/-/issues/${issueIid}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<ul>\n<li>one<\/li>\n<li>two<\/li>\n<\/ul>/);
    assert.match(page.body, /<li class="label">bug<\/li>/);
    assert.match(page.body, /<dt>Assignees<\/dt><dd>User planner \(@planner\)<\/dd>/);
    assert.match(page.body, /Seen it too/);
    assert.match(page.body, /<li class="system-note">.*assigned to @planner/s);
    assert.match(page.body, /Maintainers only: <strong>internal<\/strong>/);
    assert.match((await member.get('/root/open/-/issues')).body, /Security hole/, 'a Developer sees the confidential issue');
  });

  it('shows an anonymous visitor a public project\'s issues and notes, never a confidential issue or an internal note', async () => {
    const list = await anonymous.get('/root/open/-/issues?state=all');
    assert.equal(list.statusCode, 200, list.body);
    assert.match(list.body, /Broken &lt;b&gt;thing&lt;\/b&gt;/);
    assert.match(list.body, /Old issue/);
    assert.doesNotMatch(list.body, /Security hole/);
    const page = await anonymous.get(`/root/open/-/issues/${issueIid}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /Seen it too/);
    assert.match(page.body, /<li class="system-note">.*assigned to @planner/s);
    assert.doesNotMatch(page.body, /Maintainers only/);
    const missing = await anonymous.get('/root/open/-/issues/999');
    const confidential = await anonymous.get(`/root/open/-/issues/${confidentialIid}`);
    assert.equal(confidential.statusCode, 404);
    assert.equal(confidential.body.replace(/<title>.*<\/title>/, ''), missing.body.replace(/<title>.*<\/title>/, ''), 'a confidential issue is the same 404 as a missing one');
    assert.equal((await stranger.get(`/root/open/-/issues/${confidentialIid}`)).statusCode, 404);
  });

  it('answers HEAD on project pages as GET without a body, and resolves the API\'s web_urls', async () => {
    const head = await gantry.coordinator.app.inject({ method: 'HEAD', url: `/root/open/-/merge_requests/${mergeIid}` });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal((await gantry.coordinator.app.inject({ method: 'HEAD', url: '/root/open' })).statusCode, 200);
    const listed = await gantry.api('GET', '/projects/root%2Fopen/merge_requests');
    const issues = await gantry.api('GET', '/projects/root%2Fopen/issues?state=all');
    for (const item of [...listed.list, ...issues.list]) {
      const path = new URL(String(item.web_url)).pathname;
      assert.equal((await member.get(path)).statusCode, 200, path);
    }
  });
});
