import assert from 'node:assert/strict';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

/**
 * A coordinator with a private group `mr`, its private project `mr/app` (a repository whose
 * `main` has a README), users at each level of the project, and helpers to make branches.
 */
export interface MergeRequestFixture {
  gantry: TestCoordinator;
  group: { id: number; full_path: string };
  project: ProjectRecord;
  guest: TestUser;
  reporter: TestUser;
  developer: TestUser;
  maintainer: TestUser;
  stranger: TestUser;
  /** A branch off `main` in `projectId` with one commit of its own; answers its tip. */
  branch(name: string, projectId?: number): Promise<string>;
  /** Opens a request as `token` (root by default); asserts 201 and answers its JSON. */
  open(body: Record<string, unknown>, token?: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startMergeRequestFixture(gantry?: TestCoordinator): Promise<MergeRequestFixture> {
  gantry ??= await startTestCoordinator();
  const group = await makeGroup(gantry, 'mr', { visibility: 'private' });
  const project = await makeProjectWithRepository(gantry, group.id, 'app', { withReadme: true });
  const users = {
    guest: await makeUser(gantry, 'mr-guest'),
    reporter: await makeUser(gantry, 'mr-reporter'),
    developer: await makeUser(gantry, 'mr-developer'),
    maintainer: await makeUser(gantry, 'mr-maintainer'),
    stranger: await makeUser(gantry, 'mr-stranger'),
  };
  const levels = [[users.guest, 10], [users.reporter, 20], [users.developer, 30], [users.maintainer, 40]] as const;
  for (const [user, level] of levels) await addMember(gantry, { type: 'project', id: project.id }, user.id, level);
  const branch = async (name: string, projectId = project.id) => {
    const body = { branch: name, start_branch: 'main', commit_message: `work on ${name}`, actions: [{ action: 'create', file_path: `${name}.txt`, content: name }] };
    const commit = await gantry.api('POST', `/projects/${projectId}/repository/commits`, { body });
    assert.equal(commit.status, 201, commit.text);
    return String(commit.json.id);
  };
  const open = async (body: Record<string, unknown>, token?: string) => {
    const created = await gantry.api('POST', `/projects/${project.id}/merge_requests`, { body, token });
    assert.equal(created.status, 201, created.text);
    return created.json;
  };
  return { gantry, group, project, ...users, branch, open, close: () => gantry.close() };
}
