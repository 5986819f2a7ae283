import { createHash, generateKeyPairSync } from 'node:crypto';
import { cachedGpgKeys } from '../helpers/gpg-keys.ts';
import { appendTrace, storeArtifacts } from '../helpers/ci-blobs.ts';
import { moveJob, seedPipeline } from '../helpers/ci-pipelines.ts';
import { jobTokenDigest, newJobToken } from '../../src/coordinator/services/ci/runners/job-tokens.ts';
import type { TestCoordinator } from '../helpers/coordinator.ts';
import { addMember, makeGroup, makeProject, makeProjectWithRepository, makeUser, type TestUser } from './groups-fixtures.ts';
import { seedPlanning, type WalkPlanning } from './route-walk-planning.ts';
import { writeSignedCommit } from './signature-fixtures.ts';

/**
 * Records for every path parameter of the API to name, so a walk of the route table reaches
 * handlers rather than 404s: a public group with a subgroup-free project holding a repository
 * (commits, a branch, tags, a release with a link, protection rules, a deploy key, a commit
 * comment), a second group both are shared with, custom attributes on all three, and users
 * with keys and tokens.
 */
export interface WalkWorld {
  groupId: number;
  /** The group the project and `groupId` are shared with. */
  sharedGroupId: number;
  /** A group nothing is shared with yet. */
  spareGroupId: number;
  projectId: number;
  /** The target of /users/:id routes: SSH and GPG keys, an impersonation token, a custom attribute. */
  userId: number;
  /** A member (reporter) of the group and the project, named by the members routes. */
  memberId: number;
  /** A developer of the project and the group, for requests "as a normal user". */
  normal: TestUser;
  /** The head of `main`, its first commit, and the README's blob. */
  headSha: string;
  /** A GPG-signed commit no ref names (for `.../commits/:sha/signature`). */
  signedSha: string;
  firstSha: string;
  blobSha: string;
  /** Commits on `main`. */
  commits: number;
  branch: string;
  /** A pipeline trigger token of the project. */
  triggerToken: string;
  tag: string;
  releaseTag: string;
  linkId: number;
  /** A generic package of the project (`walk-pkg` 1.0.0) and its one file, `walk.bin`. */
  packageId: number;
  packageFileId: number;
  protectedBranch: string;
  protectedTag: string;
  deployKeyId: number;
  attributeKey: string;
  rootKeyId: number;
  rootGpgKeyId: number;
  userKeyId: number;
  /** The MD5 fingerprint of that key, for `GET /keys?fingerprint=`. */
  userKeyFingerprint: string;
  userGpgKeyId: number;
  /** GPG keys for the revoke routes (revoking removes a key). */
  rootRevokedGpgKeyId: number;
  userRevokedGpgKeyId: number;
  impersonationTokenId: number;
  /** A personal access token of the member (nobody signs in with it). */
  personalTokenId: number;
  /** A project access token and a group access token (`/{projects,groups}/:id/access_tokens/:token_id`). */
  projectAccessTokenId: number;
  groupAccessTokenId: number;
  /** Secondary e-mail addresses of root and of the target user; the target's external identity's provider. */
  rootEmailId: number;
  userEmailId: number;
  identityProvider: string;
  /** Armored GPG public keys nobody has added, for `/user/gpg_keys` and `/users/:id/gpg_keys`. */
  spareGpgKeys: [string, string];
  /** CI settings of the project (its variables, the group's and the schedule's are named `attributeKey`). */
  triggerId: number;
  /** A webhook of the project. */
  hookId: number;
  /** A webhook of `groupId`, and a system hook. */
  groupHookId: number;
  systemHookId: number;
  scheduleId: number;
  environmentId: number;
  /** A resource group of the project; its key holds a slash (given URL-encoded). */
  resourceGroupKey: string;
  /** A pipeline of the project on `main` with a failed job (so retry has work) and a bridge. */
  pipelineId: number;
  /** A runner of the project (`/runners/:id`). */
  runnerId: number;
  /** A runner of another project, for enabling in and disabling from the project (`runner_id`). */
  spareRunnerId: number;
  /**
   * The project's registration token for `POST /runners` (walked before the routes resetting
   * it: the runner protocol's routes are registered first) and a shared runner's token for
   * `POST /runners/verify` and `DELETE /runners`.
   */
  registrationToken: string;
  runnerToken: string;
  /** The shared runner whose token `runnerToken` is, and the system id of its one manager. */
  sharedRunnerId: number;
  runnerSystemId: string;
  /** A finished build on main with a trace and artifacts holding `artifactPath` (named `jobName`). */
  jobId: number;
  jobName: string;
  artifactPath: string;
  /** A manual job waiting to be played. */
  manualJobId: number;
  /** A finished build with a trace, for erase (which removes it). */
  erasableJobId: number;
  /** A build a runner took (`/jobs/:id` of the runner protocol) with artifacts, and its job token. */
  runningJobId: number;
  runningJobToken: string;
  /** Labels, milestones and issues. */
  planning: WalkPlanning;
}

let worldCounter = 0;

/** An OpenSSH ed25519 public key line. */
export function ed25519Key(comment = 'walk@test'): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(String(publicKey.export({ format: 'jwk' }).x), 'base64url');
  const field = (bytes: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, bytes.length]), bytes]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`;
}

/** `ssh-keygen -l -E md5`'s colon hex of an OpenSSH public key line. */
function md5Fingerprint(keyLine: string): string {
  const blob = Buffer.from(keyLine.split(' ')[1] ?? '', 'base64');
  return createHash('md5').update(blob).digest('hex').replace(/(..)(?!$)/g, '$1:');
}

export async function makeWalkWorld(gantry: TestCoordinator): Promise<WalkWorld> {
  worldCounter += 1;
  const suffix = worldCounter === 1 ? '' : `-${worldCounter}`;
  const call = async (method: 'POST' | 'PUT', url: string, body: unknown, status = 201): Promise<Record<string, unknown>> => {
    const response = await gantry.api(method, url, { body });
    if (response.status !== status) throw new Error(`seeding ${method} ${url}: ${response.status} ${response.text}`);
    return response.json;
  };
  const idOf = async (method: 'POST' | 'PUT', url: string, body: unknown): Promise<number> => Number((await call(method, url, body)).id);

  const group = await makeGroup(gantry, `walk${suffix}`, { visibility: 'public' });
  const shared = await makeGroup(gantry, `walk-shared${suffix}`, { visibility: 'public' });
  const spare = await makeGroup(gantry, `walk-spare${suffix}`, { visibility: 'public' });
  const project = await makeProjectWithRepository(gantry, group.id, 'walked', { visibility: 'public', withReadme: true });
  const target = await makeUser(gantry, `walker${suffix.replace('-', '')}`);
  const member = await makeUser(gantry, `walk-member${suffix}`);
  const normal = await makeUser(gantry, `walk-normal${suffix}`);
  await addMember(gantry, { type: 'namespace', id: group.id }, member.id, 20);
  await addMember(gantry, { type: 'project', id: project.id }, member.id, 20);
  await addMember(gantry, { type: 'namespace', id: group.id }, normal.id, 30);
  await addMember(gantry, { type: 'project', id: project.id }, normal.id, 30);

  const projectUrl = `/projects/${project.id}`;
  // The CI file comes first: the head commit is reverted and cherry-picked by the walk.
  await call('POST', `${projectUrl}/repository/commits`, { branch: 'main', commit_message: 'CI', actions: [{ action: 'create', file_path: '.gitlab-ci.yml', content: 'walk:\n  script: echo walk\n' }] });
  for (let index = 1; index <= 3; index += 1) {
    await call('POST', `${projectUrl}/repository/commits`, { branch: 'main', commit_message: `change ${index}`, actions: [{ action: 'create', file_path: `dir/file-${index}.txt`, content: `${index}\n` }] });
  }
  const history = await gantry.api('GET', `${projectUrl}/repository/commits?per_page=100`);
  const shas = history.list.map((commit) => String(commit.id));
  const readme = await gantry.api('GET', `${projectUrl}/repository/files/README.md?ref=main`);
  await call('POST', `${projectUrl}/repository/branches`, { branch: 'feature', ref: shas[1] });
  await call('POST', `${projectUrl}/repository/tags`, { tag_name: 'v1.0', ref: 'main', message: 'annotated' });
  await call('POST', `${projectUrl}/repository/tags`, { tag_name: 'v2.0', ref: 'main' });
  const release = await call('POST', `${projectUrl}/releases`, { tag_name: 'v1.0', name: 'One', assets: { links: [{ name: 'bin', url: 'https://example.com/bin' }] } });
  const upload = await gantry.coordinator.app.inject({ method: 'PUT', url: `/api/v4${projectUrl}/packages/generic/walk-pkg/1.0.0/walk.bin?select=package_file`, headers: { 'private-token': gantry.rootToken }, payload: 'walked' });
  const packageFile = upload.json<{ id: number; package_id: number }>();
  await call('POST', `${projectUrl}/protected_branches`, { name: 'stable' });
  await call('POST', `${projectUrl}/protected_tags`, { name: 'v*' });
  await call('POST', `${projectUrl}/repository/commits/${shas[0]}/comments`, { note: 'walked' });
  await call('POST', `${projectUrl}/share`, { group_id: shared.id, group_access: 30 });
  await call('POST', `/groups/${group.id}/share`, { group_id: shared.id, group_access: 30 });
  for (const subject of [`/users/${target.id}`, `/groups/${group.id}`, projectUrl]) {
    await call('PUT', `${subject}/custom_attributes/color`, { value: 'blue' }, 200);
  }
  // CI settings: variables named like the custom attribute (the `:key` every route is walked with).
  await call('POST', `${projectUrl}/variables`, { key: 'color', value: 'blue' });
  await call('POST', `/groups/${group.id}/variables`, { key: 'color', value: 'blue' });
  // The instance's one: a second world on the same coordinator finds it there.
  if ((await gantry.api('GET', '/admin/ci/variables/color')).status === 404) await call('POST', '/admin/ci/variables', { key: 'color', value: 'blue' });
  const scheduleId = await idOf('POST', `${projectUrl}/pipeline_schedules`, { description: 'walk', ref: 'main', cron: '0 1 * * *' });
  await call('POST', `${projectUrl}/pipeline_schedules/${scheduleId}/variables`, { key: 'color', value: 'blue' });
  const { stores } = gantry.coordinator.context;
  const createdAt = new Date().toISOString();
  const triggerToken = `walk-trigger-token${suffix}`;
  await stores.triggers.create({ project_id: project.id, token: triggerToken, description: 'walk', owner_id: 1, created_at: createdAt });
  await stores.resourceGroups.ensure(project.id, ['walk/group'], createdAt);
  const [rootGpg, userGpg, rootRevoked, userRevoked, ...spareGpgKeys] = cachedGpgKeys(6);
  const pipeline = await seedPipeline(gantry.coordinator, {
    projectId: project.id, sha: shas[0], userId: 1, jobs: [{ name: 'build', stage: 'build' }, { name: 'downstream', stage: 'build', type: 'bridge' }],
  });
  await moveJob(gantry.coordinator, pipeline.jobs.build, 'running');
  await moveJob(gantry.coordinator, pipeline.jobs.build, 'failed', 'script_failure');
  const register = async (token: string) => call('POST', '/runners', { token, run_untagged: true, locked: false });
  const spareProject = await makeProject(gantry, group.id, `walked-spare${suffix}`, { visibility: 'public' });
  const instanceToken = String((await gantry.api('GET', '/application/settings')).json.runners_registration_token);
  const sharedRunner = async (registrationToken: string) => {
    const registered = await register(registrationToken);
    const runnerSystemId = 's_walk0000001';
    await call('POST', '/runners/verify', { token: registered.token, system_id: runnerSystemId }, 200);
    return { runnerToken: String(registered.token), sharedRunnerId: Number(registered.id), runnerSystemId };
  };
  const ci = await seedCiRecords(gantry, project.id, shas[0]);
  const walkerKey = ed25519Key('walker@test');
  return {
    groupId: group.id,
    sharedGroupId: shared.id,
    spareGroupId: spare.id,
    projectId: project.id,
    userId: target.id,
    memberId: member.id,
    normal,
    headSha: shas[0],
    signedSha: writeSignedCommit(gantry.coordinator.context.repositories.open(project.id).path, shas[0]),
    firstSha: shas[shas.length - 1],
    blobSha: String(readme.json.blob_id),
    commits: shas.length,
    branch: 'feature',
    triggerToken,
    tag: 'v2.0',
    releaseTag: 'v1.0',
    linkId: Number((release.assets as { links: Array<{ id: number }> }).links[0]?.id),
    packageId: packageFile.package_id,
    packageFileId: packageFile.id,
    protectedBranch: 'stable',
    protectedTag: 'v*',
    deployKeyId: await idOf('POST', `${projectUrl}/deploy_keys`, { title: 'walk', key: ed25519Key() }),
    attributeKey: 'color',
    rootKeyId: await idOf('POST', '/user/keys', { title: 'root', key: ed25519Key('root@test') }),
    rootGpgKeyId: await idOf('POST', '/user/gpg_keys', { key: rootGpg }),
    userKeyId: await idOf('POST', `/users/${target.id}/keys`, { title: 'walker', key: walkerKey }),
    userKeyFingerprint: md5Fingerprint(walkerKey),
    userGpgKeyId: await idOf('POST', `/users/${target.id}/gpg_keys`, { key: userGpg }),
    rootRevokedGpgKeyId: await idOf('POST', '/user/gpg_keys', { key: rootRevoked }),
    userRevokedGpgKeyId: await idOf('POST', `/users/${target.id}/gpg_keys`, { key: userRevoked }),
    impersonationTokenId: await idOf('POST', `/users/${target.id}/impersonation_tokens`, { name: 'walk', scopes: ['api'] }),
    personalTokenId: await idOf('POST', `/users/${member.id}/personal_access_tokens`, { name: 'walk', scopes: ['api'] }),
    projectAccessTokenId: await idOf('POST', `${projectUrl}/access_tokens`, { name: 'walk', scopes: ['api'] }),
    groupAccessTokenId: await idOf('POST', `/groups/${group.id}/access_tokens`, { name: 'walk', scopes: ['api'] }),
    rootEmailId: await idOf('POST', '/user/emails', { email: `root-walk${suffix}@example.com` }),
    userEmailId: await idOf('POST', `/users/${target.id}/emails`, { email: `walker-second${suffix}@example.com` }),
    identityProvider: await identity(call, target.id),
    spareGpgKeys: [spareGpgKeys[0], spareGpgKeys[1]],
    triggerId: await idOf('POST', `${projectUrl}/triggers`, { description: 'walk' }),
    hookId: await idOf('POST', `${projectUrl}/hooks`, { url: 'https://hooks.example.com/walk' }),
    groupHookId: await idOf('POST', `/groups/${group.id}/hooks`, { url: 'https://hooks.example.com/walk-group' }),
    systemHookId: await idOf('POST', '/hooks', { url: 'https://hooks.example.com/walk-system' }),
    scheduleId,
    environmentId: await idOf('POST', `${projectUrl}/environments`, { name: 'walk', external_url: 'https://walk.example.com' }),
    resourceGroupKey: 'walk/group',
    pipelineId: pipeline.pipeline.id,
    runnerId: Number((await register(project.runners_token)).id),
    spareRunnerId: Number((await register(spareProject.runners_token)).id),
    registrationToken: project.runners_token,
    ...(await sharedRunner(instanceToken)),
    ...ci,
    planning: await seedPlanning(call, projectUrl, group.id, gantry),
  };
}

/** Gives the user an external identity (what `DELETE /users/:id/identities/:provider` removes); answers its provider. */
async function identity(call: (method: 'PUT', url: string, body: unknown, status: number) => Promise<unknown>, userId: number): Promise<string> {
  await call('PUT', `/users/${userId}`, { provider: 'walkprovider', extern_uid: `walk-${userId}` }, 200);
  return 'walkprovider';
}

/** A successful pipeline on `sha` (main): a build with trace and artifacts, another to erase, an optional manual job. */
async function seedCiRecords(gantry: TestCoordinator, projectId: number, sha: string) {
  const { coordinator } = gantry;
  const { jobs } = await seedPipeline(coordinator, {
    projectId, sha, ref: 'main', jobs: [{ name: 'package', stage: 'build' }, { name: 'scratch', stage: 'build' }, { name: 'ship', stage: 'build', when: 'manual', allowFailure: true }],
  });
  for (const job of [jobs.package!, jobs.scratch!]) {
    await moveJob(coordinator, job, 'running');
    await moveJob(coordinator, job, 'success');
    await appendTrace(coordinator, job, 'walked\n');
  }
  await storeArtifacts(coordinator, jobs.package!, { 'dist/out.txt': 'out\n' });
  // A build a runner of its own took: the runner protocol's job routes update it.
  const running = await seedPipeline(coordinator, { projectId, sha, ref: 'main', jobs: [{ name: 'runner-walk', stage: 'build', tags: ['walk-only'] }] });
  const runner = await coordinator.context.stores.runners.create({ runner_type: 'instance_type', created_at: new Date().toISOString(), run_untagged: false, tag_list: ['walk-only'] }, `walk-runner-${Date.now()}`);
  const runningJobToken = newJobToken();
  const claimed = (await coordinator.context.stores.ciTransactions.run((ci) => ci.jobQueue.claim(runner, { now: new Date().toISOString(), tokenDigest: jobTokenDigest(runningJobToken) })))?.job;
  if (claimed?.id !== running.jobs['runner-walk']!.id) throw new Error('the walk runner did not take its job');
  await storeArtifacts(coordinator, claimed, { 'dist/up.txt': 'up\n' });
  return {
    jobId: jobs.package!.id, jobName: 'package', artifactPath: 'dist/out.txt', manualJobId: jobs.ship!.id, erasableJobId: jobs.scratch!.id,
    runningJobId: claimed.id, runningJobToken,
  };
}
