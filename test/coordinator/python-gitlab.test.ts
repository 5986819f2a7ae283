import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { drivePythonGitlab } from '../helpers/python-gitlab.ts';

/**
 * A second stock client, python-gitlab (Debian's python3-gitlab, installed by
 * scripts/test-setup.sh), driven by test/fixtures/python-gitlab/drive.py against a listening
 * coordinator. It reads answers strictly (it compares Content-Type verbatim and sends JSON
 * content types on bodiless DELETEs), so it catches what a lenient client would not.
 */
describe('GitLab client (python-gitlab) against a listening coordinator', () => {
  let gantry: TestCoordinator;
  let seen: Record<string, unknown>;

  before(async () => {
    gantry = await startTestCoordinator();
    seen = await drivePythonGitlab(gantry, 'drive.py');
  });
  after(() => gantry.close());

  it('signs in, creates groups, users, projects and members', () => {
    assert.equal(seen.me, 'root');
    assert.equal(seen.user_keys, 0);
    assert.equal(seen.impersonated, 'py', 'an impersonation token signs the user in');
    assert.deepEqual(seen.project, ['snake/sub/charm', 'main', true]);
    assert.deepEqual(seen.members_all, [['py', 30], ['root', 50]]);
  });

  it('edits files and commits, reads history, trees, archives and refs', () => {
    assert.equal(seen.file, 'hello');
    assert.equal(seen.raw, 'hello again');
    assert.deepEqual(seen.blame, [['edit', ['hello again']]]);
    assert.deepEqual(seen.commit_titles, ['binary', 'edit', 'add', 'Initial commit'], 'get_all follows the Link header across pages of 2');
    assert.deepEqual(seen.commit_refs, [{ type: 'branch', name: 'main' }]);
    assert.deepEqual(seen.tree, ['README.md', 'bin', 'bin/data', 'docs', 'docs/hello world.txt']);
    assert.equal(seen.archive_is_gzip, true);
    assert.equal(seen.compare, 3);
  });

  it('manages tags, releases (with milestones), protected branches and group shares', () => {
    assert.deepEqual(seen.release, ['One!', ['v1.0']]);
    assert.deepEqual(seen.release_links, [['bin', 'package']]);
    assert.deepEqual(seen.release_milestones, ['m1', 'm2'], 'a release takes milestones by title');
    assert.equal(seen.release_milestones_cleared, true, 'an empty list removes them; the key is left out then');
    assert.deepEqual(seen.protected, ['main', 'release/*'], 'the default branch has its rule since its first commit, as on GitLab');
    assert.deepEqual(seen.protected_tags, [['v*', 40]]);
    assert.deepEqual(seen.shared, ['other']);
    assert.deepEqual(seen.group_shared, [['other', 30]]);
  });

  it('forks, transfers, pages through lists, edits settings and attributes, deletes', () => {
    assert.equal(seen.fork, 'py/charm');
    assert.equal(seen.transferred, 'snake/charm');
    assert.equal(seen.projects_all, 2);
    assert.equal(seen.projects_iterated, 2);
    assert.deepEqual(seen.subgroups, ['sub']);
    assert.deepEqual(seen.namespaces, [true, ['snake']], 'search matches the name or path, not the parents');
    assert.equal(seen.settings, 42);
    assert.deepEqual(seen.forward_deployment_before, [true, true], 'both on by default');
    assert.deepEqual(seen.forward_deployment_after, [false, true], 'a save sends the changed setting only');
    assert.deepEqual(seen.custom_attributes, { tier: 'gold' });
    assert.deepEqual(seen.missing, [404, '404 Project Not Found']);
    assert.equal(seen.deleted, true);
  });
});
