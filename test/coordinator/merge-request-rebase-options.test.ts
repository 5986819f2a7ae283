import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { waitUntil } from '../helpers/bounded.ts';
import { startMergeFixture, type MergeFixture } from './merge-request-merge-fixtures.ts';

type Json = Record<string, unknown>;

const CI = [
  'branch-job:',
  '  script: echo branch',
  'mr-job:',
  '  script: echo merge request',
  '  rules:',
  '    - if: $CI_PIPELINE_SOURCE == "merge_request_event"',
  '',
].join('\n');

/**
 * `PUT .../rebase` as GitLab's RebaseService: `skip_ci` pushes the rebase with the `ci.skip`
 * push option (its branch and merge request pipelines are saved `skipped`, since GitLab 15.1),
 * and a source branch whose protection forbids force pushes is refused before anything moves.
 */
describe('rebasing a merge request: skip_ci and force-push protection', () => {
  let fixture: MergeFixture;
  let project: { id: number; path: string; gitDir: string };

  const open = async (sourceBranch: string): Promise<number> => {
    const opened = await fixture.gantry.api('POST', `/projects/${project.id}/merge_requests`, { body: { source_branch: sourceBranch, target_branch: 'main', title: `Merge ${sourceBranch}` } });
    assert.equal(opened.status, 201, opened.text);
    return Number(opened.json.iid);
  };
  const rebase = (iid: number, body: Json = {}, token = fixture.developer.token) =>
    fixture.gantry.api('PUT', `/projects/${project.id}/merge_requests/${iid}/rebase`, { body, token });
  /** The pipelines of a commit by source, once both the branch and the merge request pipeline are saved. */
  const pipelinesAt = async (sha: string): Promise<Record<string, unknown>> => {
    const bySource = async () => {
      const listed = await fixture.gantry.api('GET', `/projects/${project.id}/pipelines?sha=${sha}`);
      assert.equal(listed.status, 200, listed.text);
      return Object.fromEntries(listed.list.map((pipeline) => [pipeline.source, pipeline.status]));
    };
    await waitUntil(async () => Object.keys(await bySource()).length === 2, `the branch and merge request pipelines of ${sha}`);
    return bySource();
  };
  /** A branch from main with a commit of its own, then main moves on: the branch needs a rebase. */
  const behind = async (branch: string): Promise<number> => {
    await fixture.commit(project.id, branch, { [`${branch}.txt`]: `${branch}\n` }, { startBranch: 'main' });
    const iid = await open(branch);
    await fixture.commit(project.id, 'main', { [`main-${branch}.txt`]: 'main\n' });
    return iid;
  };
  const tip = (branch: string) => fixture.git(project.gitDir, ['rev-parse', `refs/heads/${branch}`]);

  before(async () => {
    fixture = await startMergeFixture('rebase-options');
    project = await fixture.project('app');
    await fixture.commit(project.id, 'main', { '.gitlab-ci.yml': CI });
  });
  after(() => fixture.close());

  it('skip_ci saves the rebased head\'s branch and merge request pipelines skipped; without it they run', async () => {
    const skipped = await behind('quiet');
    const before = await tip('quiet');
    const quiet = await rebase(skipped, { skip_ci: true });
    assert.deepEqual([quiet.status, quiet.json], [202, { rebase_in_progress: false }], quiet.text);
    const rebased = await tip('quiet');
    assert.notEqual(rebased, before);
    assert.deepEqual(await pipelinesAt(rebased), { push: 'skipped', merge_request_event: 'skipped' });

    const ran = await behind('loud');
    assert.equal((await rebase(ran, { skip_ci: false })).status, 202);
    const statuses = await pipelinesAt(await tip('loud'));
    assert.notEqual(statuses.push, 'skipped', JSON.stringify(statuses));
    assert.notEqual(statuses.merge_request_event, 'skipped', JSON.stringify(statuses));
  });

  it('refuses (403) a source branch protected from force push, as GitLab, and rebases once the rule allows it', async () => {
    const iid = await behind('guarded');
    const before = await tip('guarded');
    const rule = await fixture.gantry.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'guarded', push_access_level: 30 } });
    assert.equal(rule.status, 201, rule.text);
    const refused = await rebase(iid);
    assert.deepEqual([refused.status, refused.json], [403, { message: '403 Forbidden - Source branch is protected from force push' }], refused.text);
    assert.equal(await tip('guarded'), before, 'nothing moved');

    assert.equal((await fixture.gantry.api('DELETE', `/projects/${project.id}/protected_branches/guarded`)).status, 204);
    const forcible = await fixture.gantry.api('POST', `/projects/${project.id}/protected_branches`, { body: { name: 'guarded', push_access_level: 30, allow_force_push: true } });
    assert.equal(forcible.status, 201, forcible.text);
    const accepted = await rebase(iid);
    assert.equal(accepted.status, 202, accepted.text);
    assert.notEqual(await tip('guarded'), before, 'rebased');
  });
});
