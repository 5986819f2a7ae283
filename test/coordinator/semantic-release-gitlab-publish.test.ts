import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

/** What the test calls of @semantic-release/gitlab (the package ships no type declarations). */
interface GitlabPlugin {
  publish(pluginConfig: Record<string, unknown>, context: PublishContext): Promise<{ name: string; url: string }>;
}

interface PublishContext {
  cwd: string;
  env: Record<string, string>;
  options: { repositoryUrl: string };
  branch: { name: string };
  nextRelease: { gitTag: string; gitHead: string; notes: string; version: string };
  logger: { log: (...args: unknown[]) => void; error: (...args: unknown[]) => void };
}

// A specifier in a variable: TypeScript then types the module as unknown exports rather than
// refusing an import without declarations.
const PLUGIN = '@semantic-release/gitlab';

/**
 * semantic-release's GitLab plugin (13.3.3), unmodified, publishing against a listening
 * coordinator: its `milestones` option goes into the release it creates, as on GitLab.
 */
describe('semantic-release GitLab plugin publishing a release with milestones', () => {
  let gantry: TestCoordinator;
  let plugin: GitlabPlugin;
  let developer: TestUser;
  let projectId: number;
  let origin: string;
  let head: string;

  const context = (gitTag: string): PublishContext => ({
    cwd: process.cwd(),
    env: { GITLAB_TOKEN: developer.token, GITLAB_URL: origin },
    options: { repositoryUrl: `${origin}/shipping/crate.git` },
    branch: { name: 'main' },
    nextRelease: { gitTag, gitHead: head, notes: `Notes of ${gitTag}`, version: gitTag.slice(1) },
    logger: { log: () => undefined, error: () => undefined },
  });
  const tag = async (name: string) => assert.equal((await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: name, ref: 'main' } })).status, 201);

  before(async () => {
    gantry = await startTestCoordinator();
    await gantry.coordinator.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(gantry.coordinator.app.server.address() as AddressInfo).port}`;
    plugin = (await import(PLUGIN)) as GitlabPlugin;
    const group = await makeGroup(gantry, 'shipping');
    projectId = (await makeProjectWithRepository(gantry, group.id, 'crate', { withReadme: true })).id;
    developer = await makeUser(gantry, 'releaser');
    await addMember(gantry, { type: 'project', id: projectId }, developer.id, 30);
    head = (await gantry.api('GET', `/projects/${projectId}/repository/commits/main`)).json.id as string;
    assert.equal((await gantry.api('POST', `/projects/${projectId}/milestones`, { body: { title: '1.0' } })).status, 201);
    assert.equal((await gantry.api('POST', `/groups/${group.id}/milestones`, { body: { title: 'Q1' } })).status, 201);
  });
  after(() => gantry.close());

  it('creates the release with the project and group milestones it names', async () => {
    await tag('v1.0.0');
    const published = await plugin.publish({ milestones: ['1.0', 'Q1'] }, context('v1.0.0'));
    assert.equal(published.url, `${origin}/shipping/crate/-/releases/v1.0.0`);
    const release = await gantry.api('GET', `/projects/${projectId}/releases/v1.0.0`);
    assert.equal(release.json.description, 'Notes of v1.0.0');
    assert.deepEqual((release.json.milestones as Array<{ title: string }>).map((milestone) => milestone.title), ['1.0', 'Q1']);
  });

  it("fails with GitLab's message when a milestone does not exist, creating no release", async () => {
    await tag('v1.1.0');
    const failed = await plugin.publish({ milestones: '9.9' }, context('v1.1.0')).then(() => undefined, (error: unknown) => error as Error);
    assert.equal(failed?.message, 'Response code 400 (Milestone(s) not found: 9.9)');
    assert.equal((await gantry.api('GET', `/projects/${projectId}/releases/v1.1.0`)).status, 404);
  });
});
