import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { MergeRequestRecord, NewMergeRequest } from '../../src/storage/types-merge-requests.ts';
import { startTestCoordinator, type ApiResponse, type TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeUser, type TestUser } from './groups-fixtures.ts';

const run = promisify(execFile);

export interface MergeFixture {
  gantry: TestCoordinator;
  developer: TestUser;
  maintainer: TestUser;
  groupId: number;
  groupPath: string;
  /** A project with a README on main. */
  project(name: string): Promise<{ id: number; path: string; gitDir: string }>;
  /** A commit through the commits API (creating `branch` from `startBranch` when given); its id. */
  commit(projectId: number, branch: string, files: Record<string, string>, options?: { startBranch?: string; message?: string }): Promise<string>;
  openRequest(projectId: number, sourceBranch: string, fields?: Partial<NewMergeRequest>): Promise<MergeRequestRecord>;
  merge(projectId: number, iid: number, body?: Record<string, unknown>, token?: string | null): Promise<ApiResponse>;
  /** `git --git-dir <gitDir> …`, trimmed stdout. */
  git(gitDir: string, args: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startMergeFixture(name: string): Promise<MergeFixture> {
  const gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
  const group = await makeGroup(gantry, name);
  const developer = await makeUser(gantry, `${name}-dev`);
  const maintainer = await makeUser(gantry, `${name}-maint`);
  await addMember(gantry, { type: 'namespace', id: group.id }, developer.id, 30);
  await addMember(gantry, { type: 'namespace', id: group.id }, maintainer.id, 40);
  const { stores, repositories } = gantry.coordinator.context;
  const git = async (gitDir: string, args: string[]): Promise<string> => (await run('git', ['--git-dir', gitDir, ...args])).stdout.trim();
  return {
    gantry,
    developer,
    maintainer,
    groupId: group.id,
    groupPath: group.full_path,
    async project(projectName) {
      const created = await gantry.api('POST', '/projects', { body: { name: projectName, namespace_id: group.id, initialize_with_readme: true, default_branch: 'main' } });
      assert.equal(created.status, 201, created.text);
      const id = Number(created.json.id);
      return { id, path: String(created.json.path_with_namespace), gitDir: repositories.open(id).path };
    },
    async commit(projectId, branch, files, options = {}) {
      const actions = await Promise.all(
        Object.entries(files).map(async ([filePath, content]) => {
          const ref = options.startBranch && !(await repositories.open(projectId).branch(branch)) ? options.startBranch : branch;
          const exists = (await repositories.open(projectId).blobAt(`refs/heads/${ref}`, filePath)) !== null;
          return { action: exists ? 'update' : 'create', file_path: filePath, content };
        }),
      );
      const response = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
        body: { branch, start_branch: options.startBranch, commit_message: options.message ?? `change ${Object.keys(files).join(', ')}`, actions },
      });
      assert.equal(response.status, 201, response.text);
      return String(response.json.id);
    },
    async openRequest(projectId, sourceBranch, fields = {}) {
      return stores.mergeRequests.create(
        {
          project_id: projectId,
          source_project_id: projectId,
          source_branch: sourceBranch,
          target_branch: 'main',
          author_id: developer.id,
          title: `Merge ${sourceBranch}`,
          description: null,
          state: 'opened',
          created_at: new Date().toISOString(),
          ...fields,
        },
        {},
      );
    },
    merge(projectId, iid, body = {}, token) {
      return gantry.api('PUT', `/projects/${projectId}/merge_requests/${iid}/merge`, { body, token });
    },
    git,
    close: () => gantry.close(),
  };
}
