import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { enc, startRepositoryFixture, type RepositoryFixture } from './repository-fixtures.ts';

const ZERO = '0'.repeat(40);
const COMMIT_FIELDS = [
  'id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date',
  'committer_name', 'committer_email', 'committed_date', 'web_url',
];

function parseLinks(header: string): Record<string, URL> {
  const links: Record<string, URL> = {};
  for (const match of header.matchAll(/<([^>]+)>; rel="(\w+)"/g)) links[match[2]] = new URL(match[1]);
  return links;
}

describe('repository commits API', () => {
  let fx: RepositoryFixture;
  let project: ProjectRecord & { full_path: string };
  let publicProject: ProjectRecord & { full_path: string };
  let empty: ProjectRecord & { full_path: string };
  let first: Record<string, unknown>;
  let second: Record<string, unknown>;
  const commitsPath = (p: ProjectRecord) => `/projects/${p.id}/repository/commits`;

  before(async () => {
    fx = await startRepositoryFixture();
    project = await fx.project('secret', { withReadme: true });
    publicProject = await fx.project('open', { visibility: 'public', withReadme: true });
    empty = await fx.project('blank');
    first = await fx.commit(project, {
      branch: 'main',
      commit_message: 'Add docs\n\nWith a body.',
      actions: [
        { action: 'create', file_path: 'docs/read me.md', content: 'line one\nline two\n' },
        { action: 'create', file_path: 'docs/héllo wörld.txt', content: Buffer.from('grüße\n').toString('base64'), encoding: 'base64' },
        { action: 'create', file_path: 'bin/data.bin', content: Buffer.from([0, 1, 2, 255]).toString('base64'), encoding: 'base64' },
      ],
    });
    second = await fx.commit(project, {
      branch: 'main',
      commit_message: 'Edit docs',
      author_name: 'Alice Author',
      author_email: 'alice@example.com',
      actions: [
        { action: 'update', file_path: 'docs/read me.md', content: 'line one\nline 2\nline three\n' },
        { action: 'move', file_path: 'bin/moved.bin', previous_path: 'bin/data.bin' },
      ],
    });
  });

  after(async () => {
    await fx?.close();
  });

  describe('POST /projects/:id/repository/commits', () => {
    it('answers the new commit with stats, status and project_id', () => {
      for (const field of COMMIT_FIELDS) assert.ok(field in first, `missing ${field}`);
      assert.match(String(first.id), /^[0-9a-f]{40}$/);
      assert.equal(first.short_id, String(first.id).slice(0, 8));
      assert.equal(first.title, 'Add docs');
      assert.match(String(first.message), /^Add docs\n\nWith a body\./);
      assert.deepEqual(first.stats, { additions: 3, deletions: 0, total: 3 });
      assert.equal(first.status, null);
      assert.equal(first.project_id, project.id);
      assert.equal(first.web_url, `http://gantry.test/team/secret/-/commit/${String(first.id)}`);
      assert.equal(first.author_name, 'Administrator');
    });

    it('uses author_name/author_email when given and chains parents', () => {
      assert.equal(second.author_name, 'Alice Author');
      assert.equal(second.author_email, 'alice@example.com');
      assert.deepEqual(second.parent_ids, [first.id]);
    });

    it('publishes a push event for the branch', () => {
      const event = fx.pushEvents.find((candidate) => candidate.after === second.id);
      assert.deepEqual(event, { project_id: project.id, ref: 'refs/heads/main', before: first.id, after: second.id, user_id: 1 });
    });

    it('creates a new branch from start_branch', async () => {
      const created = await fx.commit(project, {
        branch: 'feature/x', start_branch: 'main', commit_message: 'On a feature',
        actions: [{ action: 'create', file_path: 'feature.txt', content: 'feature\n' }],
      });
      assert.deepEqual(created.parent_ids, [second.id]);
      assert.ok(fx.pushEvents.some((event) => event.ref === 'refs/heads/feature/x' && event.before === ZERO));
    });

    it('refuses a start_branch when the target branch exists, and an unknown branch without start_branch', async () => {
      const body = { branch: 'main', start_branch: 'feature/x', commit_message: 'x', actions: [{ action: 'create', file_path: 'y.txt', content: 'y' }] };
      const exists = await fx.gantry.api('POST', commitsPath(project), { body });
      assert.equal(exists.status, 400);
      assert.match(String(exists.json.message), /already exists/);
      const noBranch = await fx.gantry.api('POST', commitsPath(project), { body: { ...body, branch: 'nowhere', start_branch: undefined } });
      assert.equal(noBranch.status, 400);
      assert.equal(noBranch.json.message, 'You can only create or edit files when you are on a branch');
    });

    it('answers 400 for missing and malformed parameters', async () => {
      const action = { action: 'create', file_path: 'z.txt', content: 'z' };
      const cases: Array<[Record<string, unknown>, Record<string, unknown>]> = [
        [{ commit_message: 'm', actions: [action] }, { error: 'branch is missing' }],
        [{ branch: 'main', actions: [action] }, { error: 'commit_message is missing' }],
        [{ branch: 'main', commit_message: 'm' }, { error: 'actions is missing' }],
        [{ branch: 'main', commit_message: 'm', actions: [] }, { error: 'actions is empty' }],
        [{ branch: 'main', commit_message: 'm', actions: [{ ...action, action: 'explode' }] }, { error: 'actions[0][action] does not have a valid value' }],
        [{ branch: 'main', commit_message: 'm', actions: [{ action: 'create', content: 'z' }] }, { error: 'actions[0][file_path] is missing' }],
        [{ branch: 'main', commit_message: 'm', actions: [{ action: 'create', file_path: 'z' }] }, { error: 'actions[0][content] is missing' }],
        [{ branch: 'main', commit_message: 'm', actions: [{ ...action, encoding: 'rot13' }] }, { error: 'actions[0][encoding] does not have a valid value' }],
        [{ branch: 'main', commit_message: 'm', actions: [{ action: 'move', file_path: 'q' }] }, { error: 'actions[0][previous_path] is missing' }],
      ];
      for (const [body, expected] of cases) {
        const response = await fx.gantry.api('POST', commitsPath(project), { body });
        assert.equal(response.status, 400, JSON.stringify(body));
        assert.deepEqual(response.body, expected);
      }
    });

    it('passes the git module’s 400s through (existing file, missing file, traversal, stale last_commit_id)', async () => {
      const post = (actions: unknown[]) => fx.gantry.api('POST', commitsPath(project), { body: { branch: 'main', commit_message: 'bad', actions } });
      const exists = await post([{ action: 'create', file_path: 'README.md', content: 'x' }]);
      assert.equal(exists.status, 400);
      assert.equal(exists.json.message, 'A file with this name already exists');
      const missing = await post([{ action: 'update', file_path: 'nope.txt', content: 'x' }]);
      assert.equal(missing.status, 400);
      assert.equal(missing.json.message, "A file with this name doesn't exist");
      const traversal = await post([{ action: 'create', file_path: 'docs/../../etc/passwd', content: 'x' }]);
      assert.equal(traversal.status, 400);
      assert.match(String(traversal.json.message), /\/\.\.\//);
      const stale = await post([{ action: 'update', file_path: 'docs/read me.md', content: 'new\n', last_commit_id: first.id }]);
      assert.equal(stale.status, 400);
    });

    it('lets developers commit, forbids reporters and guests, hides private projects from strangers', async () => {
      const body = { branch: 'main', commit_message: 'dev', actions: [{ action: 'create', file_path: 'dev.txt', content: 'dev' }] };
      assert.equal((await fx.gantry.api('POST', commitsPath(project), { body, token: fx.developer.token })).status, 201);
      assert.equal((await fx.gantry.api('POST', commitsPath(project), { body, token: fx.reporter.token })).status, 403);
      assert.equal((await fx.gantry.api('POST', commitsPath(publicProject), { body, token: fx.guest.token })).status, 403);
      assert.equal((await fx.gantry.api('POST', commitsPath(project), { body, token: fx.stranger.token })).status, 404);
      assert.equal((await fx.gantry.api('POST', commitsPath(project), { body, token: null })).status, 401);
    });

    it('makes the first commit of an empty repository its default branch', async () => {
      const repo = await fx.project('firstcommit');
      const created = await fx.commit(repo, { branch: 'trunk', commit_message: 'Root', actions: [{ action: 'create', file_path: 'a.txt', content: 'a' }] });
      assert.deepEqual(created.parent_ids, []);
      const list = await fx.gantry.api('GET', `${commitsPath(repo)}`);
      assert.equal(list.status, 200);
      assert.deepEqual(list.list.map((commit) => commit.id), [created.id]);
      const stored = await fx.gantry.coordinator.context.stores.projects.findById(repo.id);
      assert.equal(stored?.default_branch, 'trunk');
    });
  });

  describe('protected branches', () => {
    it('refuses pushes the protected-branch rules deny: 403 on commits, 400 on files', async () => {
      const { context } = fx.gantry.coordinator;
      const previous = Object.getOwnPropertyDescriptor(context, 'protectedBranches');
      Object.assign(context, { protectedBranches: { canPush: async (_project: unknown, actor: { is_admin: boolean } | null, branch: string) => branch !== 'main' || actor?.is_admin === true } });
      try {
        const body = { branch: 'main', commit_message: 'dev', actions: [{ action: 'create', file_path: 'guarded.txt', content: 'x' }] };
        const commit = await fx.gantry.api('POST', commitsPath(project), { body, token: fx.developer.token });
        assert.equal(commit.status, 403);
        assert.deepEqual(commit.body, { message: '403 Forbidden - You are not allowed to push into this branch' });
        const file = await fx.gantry.api('POST', `/projects/${project.id}/repository/files/guarded.txt`, {
          form: { branch: 'main', content: 'x', commit_message: 'm' },
          token: fx.developer.token,
        });
        assert.equal(file.status, 400);
        assert.deepEqual(file.body, { message: 'You are not allowed to push into this branch' });
        const pick = await fx.gantry.api('POST', `${commitsPath(project)}/${String(first.id)}/cherry_pick`, { body: { branch: 'main' }, token: fx.developer.token });
        assert.equal(pick.status, 403);
        assert.equal((await fx.gantry.api('POST', commitsPath(project), { body: { ...body, branch: 'side', start_branch: 'main' }, token: fx.developer.token })).status, 201);
      } finally {
        if (previous) Object.defineProperty(context, 'protectedBranches', previous);
        else Reflect.deleteProperty(context, 'protectedBranches');
      }
    });
  });

  describe('GET /projects/:id/repository/commits', () => {
    it('lists the default branch newest first with pagination headers', async () => {
      const page1 = await fx.gantry.api('GET', `${commitsPath(project)}?ref_name=main&per_page=2`);
      assert.equal(page1.status, 200);
      assert.equal(page1.list.length, 2);
      const total = Number(page1.headers['x-total']);
      assert.ok(total >= 3);
      assert.equal(page1.headers['x-page'], '1');
      assert.equal(page1.headers['x-next-page'], '2');
      const links = parseLinks(String(page1.headers.link));
      assert.equal(links.next?.searchParams.get('page'), '2');
      assert.equal(links.next?.searchParams.get('ref_name'), 'main');
      assert.equal(links.first?.searchParams.get('page'), '1');
      assert.equal(links.last?.searchParams.get('page'), String(Math.ceil(total / 2)));
      assert.equal(links.next?.pathname, `/api/v4/projects/${project.id}/repository/commits`);
      const all = await fx.gantry.api('GET', `${commitsPath(project)}?per_page=100`);
      assert.equal(all.list.length, total);
      assert.equal(all.list.at(-1)?.title, 'Initial commit');
      for (const field of COMMIT_FIELDS) assert.ok(field in all.list[0], `missing ${field}`);
      assert.ok(!('stats' in all.list[0]));
      const page2 = await fx.gantry.api('GET', `${commitsPath(project)}?per_page=2&page=2`);
      assert.deepEqual(page2.list[0].id, all.list[2].id);
    });

    it('filters by path, by ref with a slash and adds stats with with_stats', async () => {
      const byPath = await fx.gantry.api('GET', `${commitsPath(project)}?path=${enc('docs/read me.md')}`);
      assert.deepEqual(byPath.list.map((commit) => commit.id), [second.id, first.id]);
      assert.equal(byPath.headers['x-total'], '2');
      const traversal = await fx.gantry.api('GET', `${commitsPath(project)}?path=${enc('docs/../../x')}`);
      assert.deepEqual([traversal.status, traversal.body], [400, { error: 'path should be a valid file path' }]);
      const feature = await fx.gantry.api('GET', `${commitsPath(project)}?ref_name=${enc('feature/x')}&per_page=1&with_stats=true`);
      assert.equal(feature.list[0].title, 'On a feature');
      assert.deepEqual(feature.list[0].stats, { additions: 1, deletions: 0, total: 1 });
    });

    it('bounds by since/until and rejects unparseable dates', async () => {
      const future = await fx.gantry.api('GET', `${commitsPath(project)}?since=2999-01-01T00:00:00Z`);
      assert.deepEqual(future.list, []);
      const past = await fx.gantry.api('GET', `${commitsPath(project)}?until=2000-01-01T00:00:00Z`);
      assert.deepEqual(past.list, []);
      const now = await fx.gantry.api('GET', `${commitsPath(project)}?since=2000-01-01T00:00:00Z`);
      assert.ok(now.list.length >= 3);
      assert.equal((await fx.gantry.api('GET', `${commitsPath(project)}?since=yesterday`)).status, 400);
    });

    it('filters by author, and takes first_parent and order (default or topo)', async () => {
      const every = (await fx.gantry.api('GET', commitsPath(project))).list;
      const someone = String(every[0]!.author_email);
      const bySomeone = await fx.gantry.api('GET', `${commitsPath(project)}?author=${encodeURIComponent(someone)}`);
      assert.ok(bySomeone.list.length > 0 && bySomeone.list.every((commit) => commit.author_email === someone));
      assert.deepEqual((await fx.gantry.api('GET', `${commitsPath(project)}?author=nobody-zz`)).list, []);
      assert.equal((await fx.gantry.api('GET', `${commitsPath(project)}?first_parent=true&order=topo`)).status, 200);
      assert.deepEqual((await fx.gantry.api('GET', `${commitsPath(project)}?order=bogus`)).json, { error: 'order does not have a valid value' });
    });

    it('answers [] for an unknown ref and an empty repository', async () => {
      const unknown = await fx.gantry.api('GET', `${commitsPath(project)}?ref_name=no-such-branch`);
      assert.equal(unknown.status, 200);
      assert.deepEqual(unknown.list, []);
      const blank = await fx.gantry.api('GET', commitsPath(empty));
      assert.equal(blank.status, 200);
      assert.deepEqual(blank.list, []);
      assert.equal(blank.headers['x-total'], '0');
    });

    it('applies read access: anonymous on public yes, private no, guest of private 403', async () => {
      assert.equal((await fx.gantry.api('GET', commitsPath(publicProject), { token: null })).status, 200);
      const anonymous = await fx.gantry.api('GET', commitsPath(project), { token: null });
      assert.equal(anonymous.status, 404);
      assert.deepEqual(anonymous.body, { message: '404 Project Not Found' });
      assert.equal((await fx.gantry.api('GET', commitsPath(project), { token: fx.stranger.token })).status, 404);
      assert.equal((await fx.gantry.api('GET', commitsPath(project), { token: fx.guest.token })).status, 403);
      assert.equal((await fx.gantry.api('GET', commitsPath(project), { token: fx.reporter.token })).status, 200);
      assert.equal((await fx.gantry.api('GET', `/projects/${enc(project.full_path)}/repository/commits`)).status, 200);
    });
  });

  describe('GET /projects/:id/repository/commits/:sha', () => {
    it('answers a commit by SHA with stats, status, project_id and last_pipeline', async () => {
      const response = await fx.gantry.api('GET', `${commitsPath(project)}/${String(second.id)}`);
      assert.equal(response.status, 200);
      assert.equal(response.json.id, second.id);
      assert.deepEqual(response.json.stats, { additions: 2, deletions: 1, total: 3 });
      assert.equal(response.json.status, null);
      assert.equal(response.json.last_pipeline, null);
      assert.equal(response.json.project_id, project.id);
    });

    it('resolves branch names (with slashes) and short SHAs; stats=false drops stats', async () => {
      const byBranch = await fx.gantry.api('GET', `${commitsPath(project)}/${enc('feature/x')}?stats=false`);
      assert.equal(byBranch.json.title, 'On a feature');
      assert.ok(!('stats' in byBranch.json));
      const short = await fx.gantry.api('GET', `${commitsPath(project)}/${String(first.id).slice(0, 10)}`);
      assert.equal(short.json.id, first.id);
    });

    it('answers 404 Commit Not Found for unknown SHAs and empty repositories', async () => {
      for (const target of [`${commitsPath(project)}/${'f'.repeat(40)}`, `${commitsPath(project)}/nope`, `${commitsPath(empty)}/main`]) {
        const response = await fx.gantry.api('GET', target);
        assert.equal(response.status, 404, target);
        assert.deepEqual(response.body, { message: '404 Commit Not Found' });
      }
    });
  });

  describe('GET /projects/:id/repository/commits/:sha/diff', () => {
    it('answers the diff entries of a commit', async () => {
      const response = await fx.gantry.api('GET', `${commitsPath(project)}/${String(second.id)}/diff`);
      assert.equal(response.status, 200);
      const edited = response.list.find((entry) => entry.new_path === 'docs/read me.md');
      assert.ok(edited);
      assert.deepEqual(Object.keys(edited).sort(), ['a_mode', 'b_mode', 'collapsed', 'deleted_file', 'diff', 'new_file', 'new_path', 'old_path', 'renamed_file', 'too_large']);
      assert.match(String(edited.diff), /-line two\n\+line 2\n\+line three/);
      assert.equal(edited.new_file, false);
      const moved = response.list.find((entry) => entry.new_path === 'bin/moved.bin');
      assert.equal(moved?.renamed_file, true);
      assert.equal(moved?.old_path, 'bin/data.bin');
      assert.equal(response.headers['x-total'], String(response.list.length));
    });

    it('404s an unknown commit', async () => {
      const response = await fx.gantry.api('GET', `${commitsPath(project)}/${'a'.repeat(40)}/diff`);
      assert.equal(response.status, 404);
      assert.deepEqual(response.body, { message: '404 Commit Not Found' });
    });
  });

  describe('commit comments', () => {
    it('attaches a comment to a new line of the diff', async () => {
      const response = await fx.gantry.api('POST', `${commitsPath(project)}/${String(second.id)}/comments`, {
        body: { note: 'Nice line', path: 'docs/read me.md', line: 3, line_type: 'new' },
        token: fx.developer.token,
      });
      assert.equal(response.status, 201);
      assert.equal(response.json.note, 'Nice line');
      assert.equal(response.json.path, 'docs/read me.md');
      assert.equal(response.json.line, 3);
      assert.equal(response.json.line_type, 'new');
      assert.equal((response.json.author as Record<string, unknown>).username, fx.developer.username);
      assert.match(String(response.json.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('leaves path, line and line_type null when the line or path does not exist', async () => {
      for (const body of [
        { note: 'No such line', path: 'docs/read me.md', line: 99, line_type: 'new' },
        { note: 'No such file', path: 'missing.txt', line: 1, line_type: 'new' },
        { note: 'Plain comment' },
      ]) {
        const response = await fx.gantry.api('POST', `${commitsPath(project)}/${String(second.id)}/comments`, { body });
        assert.equal(response.status, 201);
        assert.equal(response.json.path, null);
        assert.equal(response.json.line, null);
        assert.equal(response.json.line_type, null);
      }
    });

    it('lists comments of the commit oldest first', async () => {
      const response = await fx.gantry.api('GET', `${commitsPath(project)}/${String(second.id)}/comments`);
      assert.equal(response.status, 200);
      assert.deepEqual(response.list.map((comment) => comment.note), ['Nice line', 'No such line', 'No such file', 'Plain comment']);
      assert.equal(response.headers['x-total'], '4');
      const none = await fx.gantry.api('GET', `${commitsPath(project)}/${String(first.id)}/comments`);
      assert.deepEqual(none.list, []);
    });

    it('validates note, line, line_type and the commit', async () => {
      const url = `${commitsPath(project)}/${String(second.id)}/comments`;
      assert.deepEqual((await fx.gantry.api('POST', url, { body: {} })).body, { error: 'note is missing' });
      assert.deepEqual((await fx.gantry.api('POST', url, { body: { note: 'x', path: 'a' } })).body, { error: 'line is missing' });
      assert.deepEqual((await fx.gantry.api('POST', url, { body: { note: 'x', path: 'a', line: 1, line_type: 'sideways' } })).body, {
        error: 'line_type does not have a valid value',
      });
      const unknown = await fx.gantry.api('POST', `${commitsPath(project)}/${'b'.repeat(40)}/comments`, { body: { note: 'x' } });
      assert.deepEqual(unknown.body, { message: '404 Commit Not Found' });
      assert.equal((await fx.gantry.api('POST', url, { body: { note: 'x' }, token: null })).status, 401);
      assert.equal((await fx.gantry.api('GET', url, { token: fx.stranger.token })).status, 404);
    });
  });

  describe('POST /projects/:id/repository/commits/:sha/cherry_pick', () => {
    it('cherry-picks a commit onto a branch and publishes the push', async () => {
      const picked = await fx.commit(project, {
        branch: 'pick-source', start_branch: 'main', commit_message: 'Pick me',
        actions: [{ action: 'create', file_path: 'picked.txt', content: 'picked\n' }],
      });
      const main = await fx.gantry.api('GET', `${commitsPath(project)}/main`);
      const response = await fx.gantry.api('POST', `${commitsPath(project)}/${String(picked.id)}/cherry_pick`, { body: { branch: 'main' }, token: fx.developer.token });
      assert.equal(response.status, 201);
      assert.equal(response.json.title, 'Pick me');
      assert.deepEqual(response.json.parent_ids, [main.json.id]);
      assert.ok(!('stats' in response.json));
      assert.ok(fx.pushEvents.some((event) => event.after === response.json.id && event.before === main.json.id));
      const again = await fx.gantry.api('POST', `${commitsPath(project)}/${String(picked.id)}/cherry_pick`, { body: { branch: 'main' } });
      assert.equal(again.status, 400);
    });

    it('answers 400/404/403 for bad requests', async () => {
      const url = `${commitsPath(project)}/${String(first.id)}/cherry_pick`;
      assert.deepEqual((await fx.gantry.api('POST', url, { body: {} })).body, { error: 'branch is missing' });
      assert.deepEqual((await fx.gantry.api('POST', url, { body: { branch: 'ghost' } })).body, { message: '404 Branch Not Found' });
      const unknown = await fx.gantry.api('POST', `${commitsPath(project)}/${'c'.repeat(40)}/cherry_pick`, { body: { branch: 'main' } });
      assert.deepEqual(unknown.body, { message: '404 Commit Not Found' });
      assert.equal((await fx.gantry.api('POST', url, { body: { branch: 'main' }, token: fx.reporter.token })).status, 403);
    });
  });

  describe('POST /projects/:id/repository/commits/:sha/revert', () => {
    it('commits the inverse of a commit as the caller, and refuses to revert twice', async () => {
      const added = await fx.commit(project, { branch: 'main', commit_message: 'Add doomed', actions: [{ action: 'create', file_path: 'doomed.txt', content: 'x\n' }] });
      const response = await fx.gantry.api('POST', `${commitsPath(project)}/${String(added.id)}/revert`, { body: { branch: 'main' }, token: fx.developer.token });
      assert.equal(response.status, 201, response.text);
      assert.equal(response.json.title, 'Revert "Add doomed"');
      assert.equal(response.json.message, `Revert "Add doomed"\n\nThis reverts commit ${String(added.id)}`);
      assert.equal(response.json.author_name, `User ${fx.developer.username}`);
      assert.deepEqual(response.json.parent_ids, [added.id]);
      assert.equal((await fx.gantry.api('GET', `/projects/${project.id}/repository/files/doomed.txt?ref=main`)).status, 404);
      const again = await fx.gantry.api('POST', `${commitsPath(project)}/${String(added.id)}/revert`, { body: { branch: 'main' } });
      assert.deepEqual(again.body, {
        message: 'Sorry, we cannot revert this commit automatically. This commit may already have been reverted, or a more recent commit may have updated some of its content.',
      });
      const url = `${commitsPath(project)}/${String(added.id)}/revert`;
      assert.deepEqual((await fx.gantry.api('POST', url, { body: {} })).body, { error: 'branch is missing' });
      assert.deepEqual((await fx.gantry.api('POST', url, { body: { branch: 'ghost' } })).body, { message: '404 Branch Not Found' });
      assert.equal((await fx.gantry.api('POST', url, { body: { branch: 'main' }, token: fx.reporter.token })).status, 403);
    });
  });
});
