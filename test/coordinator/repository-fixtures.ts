import type { LightMyRequestResponse } from 'fastify';
import type { PushEvent } from '../../src/coordinator/services/events.ts';
import type { ProjectRecord, Visibility } from '../../src/storage/types.ts';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';

/** A coordinator with a public group `team`, users at each access level and a push-event log. */
export interface RepositoryFixture {
  gantry: TestCoordinator;
  developer: TestUser;
  reporter: TestUser;
  guest: TestUser;
  stranger: TestUser;
  pushEvents: PushEvent[];
  /** A project row and its repository (README.md on main when withReadme); developer/reporter/guest are members. */
  project(projectPath: string, options?: { visibility?: Visibility; withReadme?: boolean }): Promise<ProjectRecord & { full_path: string }>;
  /** POST /repository/commits as root (or `token`); throws unless 201. */
  commit(project: ProjectRecord, body: Record<string, unknown>, token?: string): Promise<Record<string, unknown>>;
  /** A GET answered with its raw bytes. */
  raw(path: string, token?: string | null): Promise<LightMyRequestResponse & { bytes: Buffer }>;
  close(): Promise<void>;
}

let counter = 0;

export async function startRepositoryFixture(options: Parameters<typeof startTestCoordinator>[0] = {}): Promise<RepositoryFixture> {
  const gantry = await startTestCoordinator(options);
  const { context } = gantry.coordinator;
  // The default branch is unprotected here so developers may write to main; protection tests turn it back on.
  await context.settings.update({ default_branch_protection: 0 });
  counter += 1;
  const developer = await makeUser(gantry, `dev${counter}`);
  const reporter = await makeUser(gantry, `rep${counter}`);
  const guest = await makeUser(gantry, `guest${counter}`);
  const stranger = await makeUser(gantry, `stranger${counter}`);
  const group = await makeGroup(gantry, 'team', { visibility: 'public' });
  const pushEvents: PushEvent[] = [];
  context.events.onPush((event) => {
    pushEvents.push(event);
  });

  return {
    gantry,
    developer,
    reporter,
    guest,
    stranger,
    pushEvents,
    async project(projectPath, options = {}) {
      const project = await makeProjectWithRepository(gantry, group.id, projectPath, options);
      for (const [user, level] of [[developer, 30], [reporter, 20], [guest, 10]] as const) {
        await addMember(gantry, { type: 'project', id: project.id }, user.id, level);
      }
      return { ...project, full_path: `team/${projectPath}` };
    },
    async commit(project, body, token) {
      const created = await gantry.api('POST', `/projects/${project.id}/repository/commits`, { body, token });
      if (created.status !== 201) throw new Error(`commit: ${created.status} ${created.text}`);
      return created.json;
    },
    async raw(path, token = ROOT_TOKEN) {
      const headers: Record<string, string> = token === null ? {} : { 'private-token': token };
      const response = await gantry.coordinator.app.inject({ method: 'GET', url: `/api/v4${path}`, headers });
      return Object.assign(response, { bytes: response.rawPayload });
    },
    close: () => gantry.close(),
  };
}

/** `encodeURIComponent` for path segments (`a/b c.txt` → `a%2Fb%20c.txt`). */
export const enc = encodeURIComponent;
