import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { JobRecord } from '../../src/storage/types-ci-jobs.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const CI = `
stages: [build, test, deploy]
build:
  stage: build
  script: make
  tags: [linux, docker]
test:
  stage: test
  script: make test
  needs: [build]
  retry: 2
deploy:
  stage: deploy
  script: ./deploy
  environment: { name: review/$CI_COMMIT_REF_NAME }
  rules:
    - if: $DEPLOY == "yes"
secret:
  stage: deploy
  script: echo secret
  rules:
    - if: $SECRET == "s3cret"
`;

type Json = Record<string, unknown>;

describe('pipeline creation: POST /projects/:id/pipeline and trigger tokens', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let users: Record<'guest' | 'reporter' | 'developer' | 'maintainer' | 'stranger', { id: number; token: string }>;

  async function commit(branch: string, files: Record<string, string>, startBranch?: string): Promise<string> {
    const existing = startBranch === undefined ? [] : ['.gitlab-ci.yml'];
    const actions = Object.entries(files).map(([path, content]) => ({ action: existing.includes(path) ? 'update' : 'create', file_path: path, content }));
    const answer = await gantry.api('POST', `/projects/${projectId}/repository/commits`, { body: { branch, start_branch: startBranch, commit_message: `add ${Object.keys(files).join(', ')}`, actions } });
    assert.equal(answer.status, 201, answer.text);
    return answer.json.id as string;
  }

  async function pipelines(project = projectId): Promise<PipelineRecord[]> {
    return (await gantry.coordinator.context.stores.pipelines.list({ projectId: project, sort: 'asc' }, { offset: 0, limit: 100 })).items;
  }

  async function jobsOf(pipelineId: number): Promise<Record<string, JobRecord>> {
    const { items } = await gantry.coordinator.context.stores.jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 100 });
    return Object.fromEntries(items.map((job) => [job.name, job]));
  }

  async function waitFor<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
    for (let attempt = 0; attempt < 400; attempt++) {
      const value = await read();
      if (value !== undefined) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`timed out waiting for ${what}`);
  }

  before(async () => {
    gantry = await startTestCoordinator({ extra: { ci: { taskPollIntervalMs: 50 } } });
    const created = await gantry.api('POST', '/projects', { body: { name: 'app', initialize_with_readme: true, visibility: 'private' } });
    assert.equal(created.status, 201, created.text);
    projectId = created.json.id as number;
    const levels = { guest: 10, reporter: 20, developer: 30, maintainer: 40 } as const;
    const made: Partial<typeof users> = {};
    for (const [name, level] of Object.entries(levels) as Array<[keyof typeof levels, number]>) {
      const user = await gantry.createUser(name);
      made[name] = user;
      const member = await gantry.api('POST', `/projects/${projectId}/members`, { body: { user_id: user.id, access_level: level } });
      assert.equal(member.status, 201, member.text);
    }
    made.stranger = await gantry.createUser('stranger');
    users = made as typeof users;
    await commit('main', { '.gitlab-ci.yml': CI });
  });
  after(() => gantry.close());

  it('a commit through the API (a push) creates a push pipeline with its first jobs pending', async () => {
    const pipeline = await waitFor(async () => (await pipelines()).find((item) => item.source === 'push'), 'the push pipeline');
    assert.equal(pipeline.status, 'pending');
    assert.equal(pipeline.ref, 'main');
    assert.notEqual(pipeline.before_sha, '0'.repeat(40));
    const jobs = await jobsOf(pipeline.id);
    assert.equal(jobs.build?.status, 'pending');
    assert.equal(jobs.test?.status, 'created');
    assert.equal(jobs.deploy, undefined, 'rules left deploy out');
  });

  it('creates a pipeline for a branch: 201 with the detailed pipeline, jobs stored from the definitions', async () => {
    const answer = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
    assert.equal(answer.status, 201, answer.text);
    const body = answer.json;
    assert.equal(body.ref, 'main');
    assert.equal(body.status, 'pending');
    assert.equal(body.source, 'api');
    assert.equal(body.before_sha, '0'.repeat(40));
    assert.equal(body.tag, false);
    assert.equal(body.yaml_errors, null);
    assert.equal(body.coverage, null);
    assert.equal((body.user as Json).username, 'root');
    assert.match(String(body.sha), /^[0-9a-f]{40}$/);
    assert.equal(typeof body.iid, 'number');
    assert.equal((body.detailed_status as Json).group, 'pending');
    assert.match(String(body.web_url), /\/-\/pipelines\/\d+$/);
    for (const key of ['created_at', 'updated_at', 'started_at', 'finished_at', 'committed_at', 'duration', 'queued_duration', 'project_id', 'id']) assert.ok(key in body, key);

    const jobs = await jobsOf(body.id as number);
    assert.deepEqual(Object.keys(jobs).sort(), ['build', 'test']);
    assert.equal(jobs.build?.status, 'pending');
    assert.deepEqual(jobs.build?.tag_list, ['docker', 'linux']);
    assert.deepEqual(jobs.test?.needs, [{ name: 'build', optional: false, artifacts: true }]);
    assert.deepEqual(jobs.test?.retry, { max: 2, when: ['always'] });
    assert.equal(jobs.test?.definition?.script[0], 'make test');
  });

  it('passes variables[] to the compiler and stores them with the pipeline', async () => {
    const answer = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main', variables: [{ key: 'DEPLOY', value: 'yes' }, { key: 'CONF', value: 'x', variable_type: 'file' }] } });
    assert.equal(answer.status, 201, answer.text);
    const id = answer.json.id as number;
    const jobs = await jobsOf(id);
    assert.equal(jobs.deploy?.status, 'created');
    assert.equal(jobs.deploy?.environment, 'review/main');
    const stored = await gantry.coordinator.context.stores.pipelineVariables.list(id);
    assert.deepEqual(stored.map((variable) => [variable.key, variable.value, variable.variable_type]).sort(), [['CONF', 'x', 'file'], ['DEPLOY', 'yes', 'env_var']]);
  });

  it('answers bad input with GitLab messages and saves nothing', async () => {
    const before = (await pipelines()).length;
    const cases: Array<[unknown, number, unknown]> = [
      [{}, 400, { error: 'ref is missing' }],
      [{ ref: '' }, 400, { error: 'ref is missing' }],
      [{ ref: 'no-such-branch' }, 400, { message: { base: ['Reference not found'] } }],
      [{ ref: 'main', variables: 'DEPLOY=yes' }, 400, { error: 'variables is invalid' }],
      [{ ref: 'main', variables: [{ value: 'v' }] }, 400, { error: 'variables[key] is missing' }],
      [{ ref: 'main', variables: [{ key: 'A', value: 'v', variable_type: 'secret' }] }, 400, { error: 'variables[variable_type] does not have a valid value' }],
      [{ ref: 'main', variables: [{ key: 'NOT-A-KEY', value: 'v' }] }, 400, { message: { variables: ["key can contain only letters, digits and '_'."] } }],
    ];
    for (const [body, status, expected] of cases) {
      const answer = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body });
      assert.equal(answer.status, status, `${JSON.stringify(body)}: ${answer.text}`);
      assert.deepEqual(answer.body, expected, JSON.stringify(body));
    }
    assert.equal((await pipelines()).length, before);
  });

  it('refuses configuration errors, workflow-filtered runs and a missing file with 400, saving nothing', async () => {
    await commit('broken', { '.gitlab-ci.yml': 'build:\n  stage: build\n  scrip: make\n' }, 'main');
    await commit('filtered', { '.gitlab-ci.yml': 'workflow:\n  rules:\n    - if: $CI_COMMIT_BRANCH == "main"\nbuild:\n  script: make\n' }, 'main');
    await commit('other-config', { 'ci/pipeline.yml': 'build:\n  script: make\n' }, 'main');
    // Wait for the pushes of these branches to be handled, so the counts below are stable.
    const broken = await waitFor(async () => (await pipelines()).find((item) => item.ref === 'broken'), 'the failed push pipeline of broken');
    assert.equal(broken.status, 'failed');
    assert.equal(broken.failure_reason, 'config_error');
    assert.match(String(broken.yaml_errors), /should implement the script/);
    await waitFor(async () => (await pipelines()).find((item) => item.ref === 'other-config'), 'the push pipeline of other-config');
    const count = (await pipelines()).length;

    const invalid = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'broken' } });
    assert.equal(invalid.status, 400);
    assert.match(JSON.stringify(invalid.json.message), /should implement the script/);
    const filtered = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'filtered' } });
    assert.equal(filtered.status, 400);
    assert.deepEqual(filtered.json, { message: { base: ['Pipeline filtered out by workflow rules.'] } });
    assert.equal((await pipelines()).length, count);
  });

  it('honours ci_config_path and jobs_enabled', async () => {
    const moved = await gantry.api('PUT', `/projects/${projectId}`, { body: { ci_config_path: 'ci/pipeline.yml' } });
    assert.equal(moved.status, 200, moved.text);
    const onMain = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
    assert.deepEqual(onMain.json, { message: { base: ['Missing ci/pipeline.yml file'] } });
    const onOther = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'other-config' } });
    assert.equal(onOther.status, 201, onOther.text);
    assert.deepEqual(Object.keys(await jobsOf(onOther.json.id as number)), ['build']);
    await gantry.api('PUT', `/projects/${projectId}`, { body: { ci_config_path: '' } });

    await gantry.api('PUT', `/projects/${projectId}`, { body: { jobs_enabled: false } });
    const disabled = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'main' } });
    await gantry.api('PUT', `/projects/${projectId}`, { body: { jobs_enabled: true } });
    assert.equal(disabled.status, 403, disabled.text);
  });

  it('lets developers and up run pipelines; reporters and guests get 403, non-members of a private project 404', async () => {
    const as = (token: string) => gantry.api('POST', `/projects/${projectId}/pipeline`, { token, body: { ref: 'other-config' } });
    assert.equal((await as(users.stranger.token)).status, 404);
    assert.deepEqual((await as(users.guest.token)).json, { message: '403 Forbidden' });
    assert.equal((await as(users.reporter.token)).status, 403);
    const developer = await as(users.developer.token);
    assert.equal(developer.status, 201, developer.text);
    assert.equal((developer.json.user as Json).id, users.developer.id);
    assert.equal((await gantry.api('POST', `/projects/${projectId}/pipeline`, { token: null, body: { ref: 'main' } })).status, 401);
  });

  it('follows the protected-branch rules on protected refs, and gives protected variables only there', async () => {
    await commit('release', { 'release.txt': 'r\n' }, 'main');
    const rule = await gantry.api('POST', `/projects/${projectId}/protected_branches`, { body: { name: 'release', push_access_level: 40, merge_access_level: 40 } });
    assert.equal(rule.status, 201, rule.text);
    const refused = await gantry.api('POST', `/projects/${projectId}/pipeline`, { token: users.developer.token, body: { ref: 'release' } });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, { message: { base: ["Insufficient permissions for protected ref 'release'"] } });
    const allowed = await gantry.api('POST', `/projects/${projectId}/pipeline`, { token: users.maintainer.token, body: { ref: 'release' } });
    assert.equal(allowed.status, 201, allowed.text);

    const now = new Date().toISOString();
    await gantry.coordinator.context.stores.projectVariables.create(projectId, { key: 'SECRET', value: 's3cret', variable_type: 'env_var', protected: true, masked: false, environment_scope: '*', raw: false, description: null, hidden: false }, now);
    const onProtected = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'release' } });
    assert.equal((await jobsOf(onProtected.json.id as number)).secret?.status, 'created', 'the protected variable reached the rules');
    const feature = await commit('feature', { 'f.txt': 'f\n' }, 'main');
    assert.match(feature, /^[0-9a-f]{40}$/);
    const unprotected = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'feature' } });
    assert.equal(unprotected.status, 201, unprotected.text);
    assert.equal((await jobsOf(unprotected.json.id as number)).secret, undefined, 'no protected variable on an unprotected ref');
  });

  describe('trigger tokens', () => {
    let token: string;

    before(async () => {
      token = 'trigger-token-0123456789abcdef';
      await gantry.coordinator.context.stores.triggers.create({ project_id: projectId, token, description: 'ci', owner_id: users.maintainer.id, created_at: new Date().toISOString() });
    });

    it('runs a pipeline as the trigger owner with the trigger variables (form hash), source trigger', async () => {
      const answer = await gantry.api('POST', `/projects/${projectId}/trigger/pipeline`, { token: null, form: { token, ref: 'main', 'variables[DEPLOY]': 'yes' } });
      assert.equal(answer.status, 201, answer.text);
      assert.equal(answer.json.source, 'trigger');
      assert.equal((answer.json.user as Json).id, users.maintainer.id);
      const id = answer.json.id as number;
      const stored = await gantry.coordinator.context.stores.pipelines.findById(id);
      const trigger = await gantry.coordinator.context.stores.triggers.findByToken(token);
      assert.equal(stored?.trigger_id, trigger?.id);
      assert.notEqual(trigger?.last_used, null);
      assert.equal((await jobsOf(id)).deploy?.status, 'created', 'the trigger variable reached the rules');
      assert.deepEqual(await gantry.coordinator.context.stores.pipelineVariables.list(id), [{ key: 'DEPLOY', value: 'yes', variable_type: 'env_var' }]);
    });

    it('takes JSON and the ref in the path; saves a failed pipeline for a configuration error', async () => {
      const json = await gantry.api('POST', `/projects/${projectId}/ref/main/trigger/pipeline`, { token: null, body: { token, variables: { DEPLOY: 'no' } } });
      assert.equal(json.status, 201, json.text);
      assert.equal((await jobsOf(json.json.id as number)).deploy, undefined);
      const broken = await gantry.api('POST', `/projects/${projectId}/trigger/pipeline`, { token: null, body: { token, ref: 'broken' } });
      assert.equal(broken.status, 201, broken.text);
      assert.equal(broken.json.status, 'failed');
      assert.match(String(broken.json.yaml_errors), /should implement the script/);
    });

    it('answers 404 for a bad token, a token of another project or an unknown project; 400 for an unknown ref', async () => {
      const other = await gantry.api('POST', '/projects', { body: { name: 'other', initialize_with_readme: true } });
      const cases: Array<[string, Record<string, string>]> = [
        [`/projects/${projectId}/trigger/pipeline`, { token: 'wrong-token', ref: 'main' }],
        [`/projects/${other.json.id as number}/trigger/pipeline`, { token, ref: 'main' }],
        ['/projects/999999/trigger/pipeline', { token, ref: 'main' }],
      ];
      for (const [url, form] of cases) {
        const answer = await gantry.api('POST', url, { token: null, form });
        assert.equal(answer.status, 404, `${url}: ${answer.text}`);
        assert.deepEqual(answer.json, { message: '404 Not Found' });
      }
      const missing = await gantry.api('POST', `/projects/${projectId}/trigger/pipeline`, { token: null, form: { ref: 'main' } });
      assert.deepEqual(missing.json, { error: 'token is missing' });
      const unknownRef = await gantry.api('POST', `/projects/${projectId}/trigger/pipeline`, { token: null, form: { token, ref: 'nope' } });
      assert.equal(unknownRef.status, 400);
      assert.deepEqual(unknownRef.json, { message: { base: ['Reference not found'] } });
    });
  });

  it('rules and includes see the coordinator (CI_SERVER_*) and the project (CI_PROJECT_URL) as jobs do', async () => {
    const file = [
      'include:',
      '  - local: ci/$CI_SERVER_HOST.yml',
      'here:',
      '  script: echo here',
      '  environment: { name: at-$CI_SERVER_HOST, url: $CI_PROJECT_URL/-/environments }',
      '  rules:',
      '    - if: $CI_SERVER_URL == "http://gantry.test" && $CI_PROJECT_URL =~ /\\/app$/',
      'elsewhere:',
      '  script: echo elsewhere',
      '  rules:',
      '    - if: $CI_SERVER_HOST == "gitlab.com"',
    ].join('\n');
    await commit('server-variables', { '.gitlab-ci.yml': `${file}\n`, 'ci/gantry.test.yml': 'included: { script: echo included }\n' }, 'main');
    const answer = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'server-variables' } });
    assert.equal(answer.status, 201, answer.text);
    const jobs = await jobsOf(answer.json.id as number);
    assert.deepEqual(Object.keys(jobs).sort(), ['here', 'included']);
    assert.equal(jobs.here?.environment, 'at-gantry.test');
  });
});
