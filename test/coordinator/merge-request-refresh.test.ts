import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ciServicesOf } from '../../src/coordinator/app.ts';
import { MERGE_STATUS_CHECK_TASK } from '../../src/coordinator/services/planning/merge-requests/merge-status.ts';
import type { MergeRequestRefreshed } from '../../src/coordinator/services/planning/merge-requests/observers.ts';
import type { MergeRequestRecord } from '../../src/storage/types-merge-requests.ts';
import type { ProjectRecord, UserRecord } from '../../src/storage/types.ts';
import { waitUntil } from '../helpers/bounded.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';

describe('merge request refresh: refs/merge-requests/<iid>/head, diff refs and merge status', () => {
  let fixture: GitHttpFixture;
  let app: ProjectRecord;
  let fork: ProjectRecord;
  let root: UserRecord;
  let cwd: string;
  let forkCwd: string;
  const refreshed: MergeRequestRefreshed[] = [];

  const gitIn = (dir: string) => async (args: string[]): Promise<string> => {
    const result = await fixture.git(args, { cwd: dir });
    assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const git = (args: string[]) => gitIn(cwd)(args);
  const services = () => ciServicesOf(fixture.gantry.coordinator);
  const stores = () => fixture.gantry.coordinator.context.stores;

  async function commitFile(dir: string, file: string, content: string, message: string): Promise<string> {
    const run = gitIn(dir);
    await writeFile(path.join(dir, file), content);
    await run(['add', file]);
    await run(['commit', '-m', message]);
    return run(['rev-parse', 'HEAD']);
  }

  /** Opens a request the way the create service does: stored, then announced as saved. */
  async function open(project: ProjectRecord, sourceProject: ProjectRecord, sourceBranch: string, targetBranch: string): Promise<MergeRequestRecord> {
    const record = await stores().mergeRequests.create(
      { project_id: project.id, source_project_id: sourceProject.id, source_branch: sourceBranch, target_branch: targetBranch, author_id: root.id, title: `${sourceBranch} into ${targetBranch}`, description: null, state: 'opened', created_at: new Date().toISOString() },
      {},
    );
    await services().mergeRequestRefresher.mergeRequestSaved({ project, actor: root, before: null, after: { record, labels: [], assigneeIds: [], reviewerIds: [] }, at: record.created_at });
    return (await stores().mergeRequests.findByIid(project.id, record.iid))!;
  }

  async function current(request: MergeRequestRecord): Promise<MergeRequestRecord> {
    return (await stores().mergeRequests.findByIid(request.project_id, request.iid))!;
  }

  /** The status the queued check decides (the task runs on the worker). */
  async function decidedStatus(request: MergeRequestRecord): Promise<string> {
    let status = '';
    await waitUntil(async () => {
      status = (await current(request)).merge_status;
      return status === 'can_be_merged' || status === 'cannot_be_merged';
    }, `merge request !${request.iid}'s merge check`);
    return status;
  }

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50 } } });
    const group = await makeGroup(fixture.gantry, 'mrs', { visibility: 'public' });
    app = await fixture.project(group.id, 'app', { withReadme: true, visibility: 'public' });
    root = (await stores().users.findById(1))!;
    services().mergeRequestObserverList.push({ mergeRequestRefreshed: async (event: MergeRequestRefreshed) => void refreshed.push(event) });
    cwd = path.join(fixture.workDir, 'app');
    await gitIn(fixture.workDir)(['clone', fixture.url('mrs/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    const forked = await fixture.gantry.api('POST', `/projects/${app.id}/fork`, { body: { namespace_path: 'root' } });
    assert.equal(forked.status, 201, forked.text);
    fork = (await stores().projects.findById(Number(forked.json.id)))!;
    forkCwd = path.join(fixture.workDir, 'fork');
    await gitIn(fixture.workDir)(['clone', fixture.url('root/app', { user: 'root', secret: ROOT_TOKEN }), forkCwd]);
  });
  after(() => fixture.close());

  it('on create: writes the head ref, head/start/base shas, unchecked, queues a check that finds a clean merge', async () => {
    const main = await git(['rev-parse', 'HEAD']);
    await git(['checkout', '-b', 'feature']);
    const head = await commitFile(cwd, 'feature.txt', 'feature\n', 'Add feature');
    await git(['push', 'origin', 'feature']);
    refreshed.length = 0;
    const request = await open(app, app, 'feature', 'main');
    assert.equal(request.head_sha, head);
    assert.equal(request.start_sha, main);
    assert.equal(request.base_sha, main);
    assert.equal(refreshed.length, 1);
    assert.equal(refreshed[0]!.sourceMoved, true);
    assert.equal(refreshed[0]!.mergeRequest.head_sha, head);
    const repository = fixture.gantry.coordinator.context.repositories.open(app.id);
    assert.equal(await repository.resolveCommit(`refs/merge-requests/${request.iid}/head`), head);
    assert.equal(await decidedStatus(request), 'can_be_merged');
  });

  it('on a push to the source branch: moves head ref and head_sha before the push is acknowledged', async () => {
    const request = (await stores().mergeRequests.openBySource(app.id, 'feature'))[0]!;
    const head = await commitFile(cwd, 'feature.txt', 'feature two\n', 'Feature again');
    refreshed.length = 0;
    await git(['push', 'origin', 'feature']);
    const after = await current(request);
    assert.equal(after.head_sha, head, 'refreshed when the push answered');
    assert.equal(refreshed.filter((event) => event.sourceMoved).length, 1);
    assert.equal(refreshed[0]!.actor?.id, root.id);
    const repository = fixture.gantry.coordinator.context.repositories.open(app.id);
    assert.equal(await repository.resolveCommit(`refs/merge-requests/${request.iid}/head`), head);
    assert.equal(await decidedStatus(request), 'can_be_merged');
  });

  it('a push to the target branch that conflicts turns the status to cannot_be_merged; the head ref stays', async () => {
    const request = (await stores().mergeRequests.openBySource(app.id, 'feature'))[0]!;
    const headBefore = (await current(request)).head_sha;
    await git(['checkout', 'main']);
    await commitFile(cwd, 'feature.txt', 'main disagrees\n', 'Conflicting change on main');
    refreshed.length = 0;
    await git(['push', 'origin', 'main']);
    assert.equal(refreshed.length, 1);
    assert.equal(refreshed[0]!.sourceMoved, false);
    assert.equal(await decidedStatus(request), 'cannot_be_merged');
    const after = await current(request);
    assert.equal(after.head_sha, headBefore, 'a target push does not change the diff');
  });

  it('checkNow answers synchronously, and a stale check never overwrites a newer refresh', async () => {
    const request = await current((await stores().mergeRequests.openBySource(app.id, 'feature'))[0]!);
    const stale = { ...request };
    await stores().mergeRequests.update(request.id, { merge_status: 'unchecked' }, {});
    const checked = await services().mergeStatusCheck.checkNow(stale, app);
    assert.equal(checked.merge_status, 'cannot_be_merged', 'the check ran again on the current version');
    assert.ok(checked.lock_version > stale.lock_version + 1);
  });

  it('a fork source: the commit is copied into the target repository and readers fetch refs/merge-requests/<iid>/head', async () => {
    await gitIn(forkCwd)(['checkout', '-b', 'from-fork']);
    const head = await commitFile(forkCwd, 'fork.txt', 'from the fork\n', 'Fork work');
    await gitIn(forkCwd)(['push', 'origin', 'from-fork']);
    const request = await open(app, fork, 'from-fork', 'main');
    assert.equal(request.head_sha, head);
    assert.equal(request.source_project_id, fork.id);
    const reader = path.join(fixture.workDir, 'reader');
    await gitIn(fixture.workDir)(['init', '-q', reader]);
    await gitIn(reader)(['fetch', fixture.url('mrs/app'), `refs/merge-requests/${request.iid}/head`]);
    assert.equal(await gitIn(reader)(['rev-parse', 'FETCH_HEAD']), head, 'anonymous fetch of a public project');
    assert.equal(await decidedStatus(request), 'can_be_merged');

    const next = await commitFile(forkCwd, 'fork.txt', 'from the fork, again\n', 'More fork work');
    await gitIn(forkCwd)(['push', 'origin', 'from-fork']);
    assert.equal((await current(request)).head_sha, next, "a push to the fork's branch refreshes the upstream request");
  });

  it('a push to refs/merge-requests/* is refused, and the ref does not move', async () => {
    const request = (await stores().mergeRequests.openBySource(app.id, 'feature'))[0]!;
    const before = (await current(request)).head_sha;
    const pushed = await fixture.git(['push', '--force', 'origin', `HEAD:refs/merge-requests/${request.iid}/head`], { cwd });
    const created = await fixture.git(['push', 'origin', 'HEAD:refs/merge-requests/99/head'], { cwd });
    assert.notEqual(pushed.code, 0);
    assert.notEqual(created.code, 0);
    assert.match(pushed.stderr, /hidden ref/);
    assert.match(created.stderr, /hidden ref/);
    const repository = fixture.gantry.coordinator.context.repositories.open(app.id);
    assert.equal(await repository.resolveCommit(`refs/merge-requests/${request.iid}/head`), before);
    assert.equal(await repository.resolveCommit('refs/merge-requests/99/head'), null);
  });

  it("a push to the target that brings a request's head in merges it (GitLab's merged manually): by a merge commit, by a fast-forward, not otherwise", async () => {
    await git(['fetch', 'origin']);
    await git(['checkout', '-B', 'by-hand', 'origin/main']);
    const handHead = await commitFile(cwd, 'by-hand.txt', 'by hand\n', 'Work merged by hand');
    await git(['push', 'origin', 'by-hand']);
    const byHand = await open(app, app, 'by-hand', 'main');
    await git(['checkout', '-B', 'unrelated', 'origin/main']);
    await commitFile(cwd, 'unrelated.txt', 'unrelated\n', 'Unrelated work');
    await git(['push', 'origin', 'unrelated']);
    const untouched = await open(app, app, 'unrelated', 'main');

    await git(['checkout', '-B', 'main', 'origin/main']);
    await git(['merge', '--no-ff', '-m', 'Merge by hand', 'by-hand']);
    const mergeCommit = await git(['rev-parse', 'HEAD']);
    await git(['push', 'origin', 'main']);
    const merged = await current(byHand);
    assert.deepEqual([merged.state, merged.merge_commit_sha, merged.merged_by_id, typeof merged.merged_at], ['merged', mergeCommit, root.id, 'string'], 'merged when the push answered');
    assert.equal(merged.head_sha, handHead);
    assert.equal((await current(untouched)).state, 'opened', 'a request whose head the push did not bring stays open');
    const notes = await fixture.gantry.api('GET', `/projects/${app.id}/merge_requests/${byHand.iid}/notes`);
    assert.ok(notes.list.some((note) => note.system === true && note.body === 'merged'), notes.text);

    await git(['checkout', '-B', 'fast-forward', 'main']);
    const fastForwardHead = await commitFile(cwd, 'ff.txt', 'ff\n', 'Fast-forwarded by hand');
    await git(['push', 'origin', 'fast-forward']);
    const fastForward = await open(app, app, 'fast-forward', 'main');
    await git(['push', 'origin', 'fast-forward:main']);
    const forwarded = await current(fastForward);
    assert.deepEqual([forwarded.state, forwarded.merge_commit_sha], ['merged', fastForwardHead]);
    assert.equal((await current(untouched)).state, 'opened');
  });

  it('keeps the head ref after the request is closed; no check task is left behind', async () => {
    const request = (await stores().mergeRequests.openBySource(app.id, 'feature'))[0]!;
    await stores().mergeRequests.update(request.id, { state: 'closed' }, {});
    const repository = fixture.gantry.coordinator.context.repositories.open(app.id);
    assert.notEqual(await repository.resolveCommit(`refs/merge-requests/${request.iid}/head`), null);
    const { db } = fixture.gantry.coordinator.context;
    await waitUntil(async () => (await db.selectFrom('tasks').select('id').where('kind', '=', MERGE_STATUS_CHECK_TASK).execute()).length === 0, 'the check tasks to finish');
  });
});
