import type { ProjectRecord, Visibility } from '../../src/storage/types.ts';
import { seedPipeline, type SeedPipeline, type SeededPipeline } from '../helpers/ci-pipelines.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

/**
 * A coordinator with a group `ci` (its owner: `owner`), users at every project level and a
 * stranger, for the pipelines API tests. The default branch is unprotected unless a test
 * protects a ref itself.
 */
export interface PipelinesFixture {
  gantry: TestCoordinator;
  owner: TestUser;
  maintainer: TestUser;
  developer: TestUser;
  reporter: TestUser;
  guest: TestUser;
  stranger: TestUser;
  /** A project with a repository (README on main); every level above is a member. */
  project(path: string, options?: { visibility?: Visibility; publicJobs?: boolean }): Promise<ProjectRecord & { headSha: string }>;
  /** seedPipeline on the project's head commit by default. */
  seed(project: ProjectRecord & { headSha: string }, seed: Omit<SeedPipeline, 'projectId'> & { projectId?: number }): Promise<SeededPipeline>;
  close(): Promise<void>;
}

let counter = 0;

export async function startPipelinesFixture(): Promise<PipelinesFixture> {
  const gantry = await startTestCoordinator();
  const { context } = gantry.coordinator;
  await context.settings.update({ default_branch_protection: 0 });
  counter += 1;
  const user = (name: string) => makeUser(gantry, `${name}${counter}`, { name: `${name} person` });
  const [owner, maintainer, developer, reporter, guest, stranger] = await Promise.all(
    ['owner', 'maintainer', 'developer', 'reporter', 'guest', 'stranger'].map(user),
  );
  const group = await makeGroup(gantry, `ci${counter}`, { visibility: 'public' });
  await addMember(gantry, { type: 'namespace', id: group.id }, owner.id, 50);
  return {
    gantry,
    owner,
    maintainer,
    developer,
    reporter,
    guest,
    stranger,
    async project(path, options = {}) {
      const created = await makeProjectWithRepository(gantry, group.id, path, { visibility: options.visibility ?? 'public', withReadme: true });
      const project = options.publicJobs === false ? ((await context.stores.projects.update(created.id, { public_jobs: false })) ?? created) : created;
      for (const [member, level] of [[maintainer, 40], [developer, 30], [reporter, 20], [guest, 10]] as const) {
        await addMember(gantry, { type: 'project', id: project.id }, member.id, level);
      }
      const headSha = (await context.repositories.open(project.id).resolveCommit('main')) ?? '';
      return { ...project, headSha };
    },
    seed(project, seed) {
      return seedPipeline(gantry.coordinator, { sha: project.headSha, ...seed, projectId: seed.projectId ?? project.id });
    },
    close: () => gantry.close(),
  };
}
