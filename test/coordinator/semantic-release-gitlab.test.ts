import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

/** What the test calls of @semantic-release/gitlab (the package ships no type declarations). */
interface GitlabPlugin {
  verifyConditions(pluginConfig: Record<string, unknown>, context: ReleaseContext): Promise<void>;
  fail(pluginConfig: Record<string, unknown>, context: ReleaseContext): Promise<void>;
}

interface ReleaseContext {
  env: Record<string, string>;
  options: { repositoryUrl: string; dryRun?: boolean };
  branch: { name: string };
  errors: Error[];
  logger: { log: (...args: unknown[]) => void; error: (...args: unknown[]) => void };
}

/** The shape semantic-release gives the errors it hands to `fail` (@semantic-release/error's SemanticReleaseError). */
class SemanticReleaseError extends Error {
  readonly semanticRelease = true;
  constructor(message: string, readonly code: string, readonly details?: string) {
    super(message);
    this.name = 'SemanticReleaseError';
  }
}

// A specifier in a variable: TypeScript then types the module as unknown exports rather than
// refusing an import without declarations.
const PLUGIN = '@semantic-release/gitlab';
const FAIL_TITLE = 'The automated release is failing 🚨';

/**
 * semantic-release's GitLab plugin (13.3.3), unmodified, against a listening coordinator: its
 * verifyConditions reads the project's permissions; its failure path searches the open issues
 * for its failure title and opens one, labelled `semantic-release`, when none is open.
 */
describe('semantic-release GitLab plugin failure path', () => {
  let gantry: TestCoordinator;
  let plugin: GitlabPlugin;
  let developer: TestUser;
  let projectId: number;
  let origin: string;
  const logged: string[] = [];

  const context = (token: string, errors: Error[] = []): ReleaseContext => ({
    env: { GITLAB_TOKEN: token, GITLAB_URL: origin },
    options: { repositoryUrl: `${origin}/release-team/widget.git` },
    branch: { name: 'main' },
    errors,
    logger: { log: (...args) => logged.push(args.map(String).join(' ')), error: (...args) => logged.push(args.map(String).join(' ')) },
  });
  const openFailureIssues = async () => {
    const listed = await gantry.api('GET', `/projects/${projectId}/issues?state=opened&labels=semantic-release`);
    assert.equal(listed.status, 200);
    return listed.list as Array<{ iid: number; title: string; description: string; labels: string[]; author: { username: string } }>;
  };

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}`;
    plugin = (await import(PLUGIN)) as GitlabPlugin;
    const group = await makeGroup(gantry, 'release-team');
    projectId = (await makeProject(gantry, group.id, 'widget')).id;
    developer = await makeUser(gantry, 'releaser');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: developer.id, access_level: 30 } })).status, 201);
  });
  after(() => gantry.close());

  it('verifies a Developer, and refuses a Reporter and an unknown token as semantic-release reports them', async () => {
    await plugin.verifyConditions({}, context(developer.token));
    const reporter = await makeUser(gantry, 'watcher');
    assert.equal((await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: reporter.id, access_level: 20 } })).status, 201);
    const codes = async (token: string) => {
      const refused = await plugin.verifyConditions({}, context(token)).then(() => undefined, (error: unknown) => error as { errors: Array<{ code: string }> });
      return refused?.errors.map((error) => error.code);
    };
    assert.deepEqual(await codes(reporter.token), ['EGLNOPUSHPERMISSION']);
    assert.deepEqual(await codes('not-a-real-token-000000000000'), ['EINVALIDGLTOKEN']);
  });

  it('opens one issue labelled semantic-release with the errors on the first failure', async () => {
    const errors = [new SemanticReleaseError('No npm token specified.', 'ENONPMTOKEN', 'An npm token must be created and set in `NPM_TOKEN`.')];
    await plugin.fail({}, context(developer.token, errors));
    const [issue, ...others] = await openFailureIssues();
    assert.equal(others.length, 0);
    assert.equal(issue!.title, FAIL_TITLE);
    assert.deepEqual(issue!.labels, ['semantic-release']);
    assert.equal(issue!.author.username, 'releaser');
    assert.match(issue!.description, /The automated release from the `main` branch failed/);
    assert.match(issue!.description, /### No npm token specified\.\n\nAn npm token must be created and set in `NPM_TOKEN`\./);
    const label = await gantry.api('GET', `/projects/${projectId}/labels/semantic-release`);
    assert.equal(label.status, 200, 'the unknown label is created, as GitLab does');
    assert.ok(logged.some((line) => line.startsWith('Created issue #')), logged.join('\n'));
  });

  it('searches for its title among open issues only: a closed failure issue does not count', async () => {
    const [issue] = await openFailureIssues();
    const search = await gantry.api('GET', `/projects/${projectId}/issues?state=opened&search=${encodeURIComponent(FAIL_TITLE)}`, { token: developer.token });
    assert.deepEqual((search.list as Array<{ iid: number }>).map((found) => found.iid), [issue!.iid]);
    assert.equal((await gantry.api('PUT', `/projects/${projectId}/issues/${issue!.iid}`, { body: { state_event: 'close' } })).status, 200);
    const none = await gantry.api('GET', `/projects/${projectId}/issues?state=opened&search=${encodeURIComponent(FAIL_TITLE)}`, { token: developer.token });
    assert.deepEqual(none.list, []);
    await plugin.fail({}, context(developer.token, [new SemanticReleaseError('Again.', 'EAGAIN')]));
    const reopened = await openFailureIssues();
    assert.deepEqual(reopened.map((found) => [found.iid, found.title]), [[issue!.iid + 1, FAIL_TITLE]]);
  });

  it('comments on the open failure issue on a second failure instead of opening another', async () => {
    const [open] = await openFailureIssues();
    await plugin.fail({}, context(developer.token, [new SemanticReleaseError('Still no npm token.', 'ENONPMTOKEN', 'Set `NPM_TOKEN`.')]));
    const after = await openFailureIssues();
    assert.deepEqual(after.map((found) => found.iid), [open!.iid], 'no second issue');
    const notes = await gantry.api('GET', `/projects/${projectId}/issues/${open!.iid}/notes`);
    assert.equal(notes.status, 200);
    const comments = (notes.list as Array<{ body: string; system: boolean; author: { username: string } }>).filter((note) => !note.system);
    assert.equal(comments.length, 1);
    assert.equal(comments[0]!.author.username, developer.username);
    assert.match(comments[0]!.body, /### Still no npm token\.\n\nSet `NPM_TOKEN`\./);
    assert.equal((await gantry.api('GET', `/projects/${projectId}/issues/${open!.iid}`)).json.user_notes_count, 1);
    assert.ok(logged.some((line) => line.startsWith('Commented on issue #')), logged.join('\n'));
  });
});
