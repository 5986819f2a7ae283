import type { ProjectRecord } from '../../src/storage/types.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeUser, type TestUser } from './groups-fixtures.ts';

/** A coordinator with a private group `ci`, its private project `ci/app`, and users at each level of the project. */
export interface CiSettingsFixture {
  gantry: TestCoordinator;
  group: { id: number; full_path: string };
  project: ProjectRecord;
  guest: TestUser;
  reporter: TestUser;
  developer: TestUser;
  maintainer: TestUser;
  /** Signed in, member of nothing. */
  stranger: TestUser;
  close(): Promise<void>;
}

export async function startCiSettingsFixture(): Promise<CiSettingsFixture> {
  const gantry = await startTestCoordinator();
  const group = await makeGroup(gantry, 'ci', { visibility: 'private' });
  const project = await makeProject(gantry, group.id, 'app', { visibility: 'private' });
  const users = {
    guest: await makeUser(gantry, 'ci-guest'),
    reporter: await makeUser(gantry, 'ci-reporter'),
    developer: await makeUser(gantry, 'ci-developer'),
    maintainer: await makeUser(gantry, 'ci-maintainer'),
    stranger: await makeUser(gantry, 'ci-stranger'),
  };
  const levels = [[users.guest, 10], [users.reporter, 20], [users.developer, 30], [users.maintainer, 40]] as const;
  for (const [user, level] of levels) await addMember(gantry, { type: 'project', id: project.id }, user.id, level);
  return { gantry, group, project, ...users, close: () => gantry.close() };
}
