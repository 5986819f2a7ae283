import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compilePipeline, isBridge, toJobPayload, type BuildJobDefinition, type CompileContext } from '../../src/ci/index.ts';
import { JobPayloadSchema } from '../../src/protocol/index.ts';
import { Value } from '#deps/typebox-value';

const context: CompileContext = {
  project: { id: 7, path: 'group/app', defaultBranch: 'main' },
  ref: 'feature/Login',
  refType: 'branch',
  sha: '1234567890abcdef1234567890abcdef12345678',
  commitMessage: 'Add login\n\nWith a form.',
  source: 'push',
  files: { readFile: async () => null },
};

const yaml = `
variables:
  GLOBAL: g
  SHARED: global
rspec:
  image: { name: ruby:3, entrypoint: ["/bin/sh"], docker: { user: app, platform: linux/amd64 } }
  services:
    - name: postgres:12
      alias: db
    - name: redis:7
      variables: { REDIS_PORT: 6380, REDIS_NAME: $CI_JOB_NAME }
      docker: { user: redis }
  before_script: [bundle install]
  script: [rspec]
  after_script: [echo done]
  variables:
    SHARED: job
  parallel: 2
  timeout: 10m
  cache:
    key: $CI_COMMIT_REF_SLUG
    paths: [vendor/]
  artifacts:
    paths: [out/]
    expire_in: 1 week
    reports:
      junit: rspec.xml
  environment:
    name: review/$CI_COMMIT_REF_SLUG
    url: https://$CI_ENVIRONMENT_SLUG.example.com
`;

async function firstJob(): Promise<BuildJobDefinition> {
  const result = await compilePipeline(yaml, context);
  assert.equal(result.status, 'created', JSON.stringify(result.errors));
  const job = result.jobs[0];
  assert.ok(job && !isBridge(job));
  return job;
}

function payloadFor(job: BuildJobDefinition, refProtected: boolean, runner?: { id: number; description: string; tags: string[] }) {
  return toJobPayload(
    job,
    { jobId: 42, pipelineId: 9, pipelineIid: 3, projectId: 7 },
    { jobToken: 'job-token-123' },
    {
      repoUrl: 'https://gitlab-ci-token:job-token-123@ci.example.com/group/app.git',
      projectPath: 'group/app',
      ref: context.ref,
      refType: 'branch',
      sha: context.sha,
      refProtected,
      commitMessage: context.commitMessage,
    },
    { url: 'https://ci.example.com', version: '13.12.0', revision: 'abc123' },
    {
      source: 'push',
      user: { id: 1, email: 'a@example.com', login: 'alice', name: 'Alice' },
      variables: [
        { key: 'SHARED', value: 'project', source: 'project' },
        { key: 'DEPLOY_KEY', value: 'protected-secret', protected: true, masked: true },
        { key: 'KUBECONFIG', value: 'apiVersion: v1', file: true },
        { key: 'SHARED', value: 'pipeline', source: 'pipeline' },
        { key: 'SHARED', value: 'group', source: 'group' },
      ],
      runner,
    },
  );
}

const valueOf = (variables: { key: string; value: string }[], key: string): string | undefined =>
  variables.filter((variable) => variable.key === key).at(-1)?.value;

describe('toJobPayload', () => {
  test('matches the runner protocol schema', async () => {
    const payload = payloadFor(await firstJob(), false);
    assert.ok(Value.Check(JobPayloadSchema, payload), JSON.stringify([...Value.Errors(JobPayloadSchema, payload)].slice(0, 3)));
  });

  test('steps join before_script and script; after_script runs always', async () => {
    const payload = payloadFor(await firstJob(), false);
    assert.deepEqual(payload.steps, [
      { name: 'script', script: ['bundle install', 'rspec'], timeout: 600, when: 'on_success', allow_failure: false },
      { name: 'after_script', script: ['echo done'], timeout: 600, when: 'always', allow_failure: true },
    ]);
    assert.equal(payload.runner_info.timeout, 600);
  });

  test('image, services, cache, artifacts and git info', async () => {
    const payload = payloadFor(await firstJob(), false);
    // Of image:docker, the user is sent (the platform is not used here).
    assert.deepEqual(payload.image, { name: 'ruby:3', entrypoint: ['/bin/sh'], ports: [], executor_opts: { docker: { user: 'app' } } });
    assert.deepEqual(payload.services, [
      { name: 'postgres:12', entrypoint: null, ports: [], alias: 'db', command: null },
      // A service's variables go as they are: the runner expands them for the service's container.
      { name: 'redis:7', entrypoint: null, ports: [], alias: null, command: null, variables: [{ key: 'REDIS_PORT', value: '6380' }, { key: 'REDIS_NAME', value: '$CI_JOB_NAME' }], executor_opts: { docker: { user: 'redis' } } },
    ]);
    assert.deepEqual(payload.cache, [{ key: '$CI_COMMIT_REF_SLUG', untracked: false, paths: ['vendor/'], policy: 'pull-push', when: 'on_success' }]);
    assert.deepEqual(payload.artifacts, [
      { name: 'artifacts', untracked: false, paths: ['out/'], when: 'on_success', expire_in: '1 week', artifact_type: 'archive', artifact_format: 'zip' },
      { name: 'junit.xml', paths: ['rspec.xml'], when: 'always', expire_in: '1 week', artifact_type: 'junit', artifact_format: 'gzip' },
    ]);
    assert.deepEqual(payload.git_info.refspecs, ['+refs/pipelines/9:refs/pipelines/9', '+refs/heads/feature/Login:refs/remotes/origin/feature/Login']);
    assert.equal(payload.git_info.depth, 50);
    assert.deepEqual(payload.job_info, { name: 'rspec 1/2', stage: 'test', project_id: 7, project_name: 'app' });
    assert.deepEqual(payload.features, { trace_sections: true });
  });

  test('the runner that took the job: CI_RUNNER_ID, _DESCRIPTION and _TAGS as GitLab 13 prints them', async () => {
    const { variables } = payloadFor(await firstJob(), false, { id: 5, description: 'build host', tags: ['docker', 'linux'] });
    assert.equal(valueOf(variables, 'CI_RUNNER_ID'), '5');
    assert.equal(valueOf(variables, 'CI_RUNNER_DESCRIPTION'), 'build host');
    assert.equal(valueOf(variables, 'CI_RUNNER_TAGS'), 'docker, linux');
    const runnerVariable = variables.find((variable) => variable.key === 'CI_RUNNER_ID');
    assert.equal(runnerVariable?.public, true);
    // A job variable of the same name is written later, so it wins, as in GitLab.
    const keys = variables.map((variable) => variable.key);
    assert.ok(keys.indexOf('CI_RUNNER_TAGS') < keys.indexOf('GLOBAL'), 'runner variables come before the CI file’s');
    const untagged = payloadFor(await firstJob(), false, { id: 6, description: '', tags: [] }).variables;
    assert.equal(valueOf(untagged, 'CI_RUNNER_TAGS'), '');
    assert.equal(valueOf(payloadFor(await firstJob(), false).variables, 'CI_RUNNER_ID'), undefined);
  });

  test('predefined CI_* variables', async () => {
    const { variables } = payloadFor(await firstJob(), false);
    const expected: Record<string, string> = {
      CI: 'true',
      GITLAB_CI: 'true',
      CI_JOB_ID: '42',
      CI_JOB_NAME: 'rspec 1/2',
      CI_JOB_NAME_SLUG: 'rspec-1-2',
      CI_JOB_STAGE: 'test',
      CI_NODE_INDEX: '1',
      CI_NODE_TOTAL: '2',
      CI_PIPELINE_ID: '9',
      CI_PIPELINE_IID: '3',
      CI_PIPELINE_SOURCE: 'push',
      CI_PROJECT_ID: '7',
      CI_PROJECT_PATH: 'group/app',
      CI_PROJECT_NAME: 'app',
      CI_PROJECT_NAMESPACE: 'group',
      CI_PROJECT_PATH_SLUG: 'group-app',
      CI_PROJECT_URL: 'https://ci.example.com/group/app',
      CI_COMMIT_SHA: context.sha,
      CI_COMMIT_SHORT_SHA: '12345678',
      CI_COMMIT_BEFORE_SHA: '0000000000000000000000000000000000000000',
      CI_COMMIT_REF_NAME: 'feature/Login',
      CI_COMMIT_REF_SLUG: 'feature-login',
      CI_COMMIT_BRANCH: 'feature/Login',
      CI_COMMIT_TITLE: 'Add login',
      CI_COMMIT_DESCRIPTION: 'With a form.',
      CI_SERVER_URL: 'https://ci.example.com',
      CI_SERVER_HOST: 'ci.example.com',
      CI_SERVER_PORT: '443',
      CI_SERVER_PROTOCOL: 'https',
      CI_SERVER_VERSION_MAJOR: '13',
      CI_API_V4_URL: 'https://ci.example.com/api/v4',
      CI_ENVIRONMENT_NAME: 'review/feature-login',
      CI_ENVIRONMENT_ACTION: 'start',
      CI_ENVIRONMENT_TIER: 'development',
      GITLAB_USER_LOGIN: 'alice',
    };
    for (const [key, value] of Object.entries(expected)) assert.equal(valueOf(variables, key), value, key);
    assert.equal(valueOf(variables, 'CI_COMMIT_TAG'), undefined);
    const token = variables.find((variable) => variable.key === 'CI_JOB_TOKEN');
    assert.deepEqual(token, { key: 'CI_JOB_TOKEN', value: 'job-token-123', public: false, masked: true });
    assert.equal(variables.find((variable) => variable.key === 'CI_REPOSITORY_URL')?.public, false);
    assert.equal(valueOf(variables, 'CI_ENVIRONMENT_SLUG'), 'review-feature-lo-qiv329');
  });

  test('precedence: yaml over predefined, then group < project < pipeline; CI_ENVIRONMENT_URL last', async () => {
    const { variables } = payloadFor(await firstJob(), false);
    assert.equal(valueOf(variables, 'SHARED'), 'pipeline');
    const shared = variables.filter((variable) => variable.key === 'SHARED').map((variable) => variable.value);
    assert.deepEqual(shared, ['job', 'group', 'project', 'pipeline']);
    assert.deepEqual(variables.at(-1), { key: 'CI_ENVIRONMENT_URL', value: 'https://$CI_ENVIRONMENT_SLUG.example.com', public: true, masked: false });
  });

  test('protected variables only on protected refs; masked and file flags kept', async () => {
    const job = await firstJob();
    assert.equal(valueOf(payloadFor(job, false).variables, 'DEPLOY_KEY'), undefined);
    const onProtected = payloadFor(job, true).variables;
    assert.deepEqual(onProtected.find((variable) => variable.key === 'DEPLOY_KEY'), {
      key: 'DEPLOY_KEY', value: 'protected-secret', public: false, masked: true,
    });
    assert.deepEqual(onProtected.find((variable) => variable.key === 'KUBECONFIG'), {
      key: 'KUBECONFIG', value: 'apiVersion: v1', public: false, masked: false, file: true,
    });
    assert.equal(valueOf(onProtected, 'CI_COMMIT_REF_PROTECTED'), 'true');
  });

  test('image and service names, cache keys and policies and the artifact name go as written, $VARIABLES and all, for the runner to expand, as GitLab sends them', async () => {
    const named = `
build:
  variables:
    TAG: "3.19"
    IMAGE: alpine:$TAG
    RAW: { value: "left-$TAG", expand: false }
  image: $IMAGE
  services: [redis:$TAG, $UNSET_SERVICE]
  cache: { key: "deps-$RAW", fallback_keys: ["main-$TAG"], policy: $POLICY, paths: [vendor/] }
  artifacts: { name: "plan-$CI_JOB_NAME", paths: [plan/] }
  environment: { name: "review/$TAG/$UNSET_NAME" }
  script: make
`;
    const result = await compilePipeline(named, context);
    const job = result.jobs[0];
    assert.ok(job && !isBridge(job), JSON.stringify(result.errors));
    const payload = payloadFor(job, false);
    assert.equal(payload.image?.name, '$IMAGE');
    assert.deepEqual(payload.services.map((service) => service.name), ['redis:$TAG', '$UNSET_SERVICE']);
    assert.equal(payload.cache[0]?.key, 'deps-$RAW');
    assert.deepEqual(payload.cache[0]?.fallback_keys, ['main-$TAG']);
    assert.equal(payload.cache[0]?.policy, '$POLICY');
    assert.equal(payload.artifacts[0]?.name, 'plan-$CI_JOB_NAME');
    // The environment's name is GitLab's to expand: a variable it does not know is empty.
    assert.equal(valueOf(payload.variables, 'CI_ENVIRONMENT_NAME'), 'review/3.19/');
  });

  test('image:pull_policy and services:pull_policy go to the runner as lists, a single policy too; without one, none is sent', async () => {
    const withPolicies = `
build:
  image: { name: alpine:3.19, pull_policy: if-not-present }
  services:
    - { name: redis:7, pull_policy: [always, if-not-present] }
    - postgres:16
  script: make
`;
    const result = await compilePipeline(withPolicies, context);
    const job = result.jobs[0];
    assert.ok(job && !isBridge(job), JSON.stringify(result.errors));
    const payload = payloadFor(job, false);
    assert.deepEqual(payload.image, { name: 'alpine:3.19', ports: [], pull_policy: ['if-not-present'] });
    assert.deepEqual(payload.services.map((service) => service.pull_policy), [['always', 'if-not-present'], undefined]);
    assert.ok(Value.Check(JobPayloadSchema, payload), JSON.stringify([...Value.Errors(JobPayloadSchema, payload)].slice(0, 3)));
    assert.equal((await firstJob()).image?.pullPolicy, undefined);
  });

  test("release: a release step after the script, release-cli's command as GitLab writes it", async () => {
    const text = `deploy:
  script: echo go
  after_script: echo done
  release:
    tag_name: $CI_COMMIT_TAG
    description: Notes of $CI_COMMIT_TAG
    name: Release
    milestones: m1
    assets:
      links:
        - { name: app, url: 'https://example.com/app' }
`;
    const result = await compilePipeline(text, context);
    const job = result.jobs[0];
    assert.ok(job && !isBridge(job), JSON.stringify(result.errors));
    const payload = payloadFor(job, false);
    assert.deepEqual(payload.steps.map((step) => step.name), ['script', 'release', 'after_script']);
    assert.deepEqual(payload.steps[1], {
      name: 'release',
      script: ['release-cli create --name "Release" --description "Notes of $CI_COMMIT_TAG" --tag-name "$CI_COMMIT_TAG" --milestone "m1" --assets-link "{\\"name\\":\\"app\\",\\"url\\":\\"https://example.com/app\\"}"'],
      timeout: payload.steps[0]!.timeout,
      when: 'on_success',
      allow_failure: false,
    });
    assert.ok(Value.Check(JobPayloadSchema, payload), JSON.stringify([...Value.Errors(JobPayloadSchema, payload)].slice(0, 3)));
  });

  test('hooks:pre_get_sources_script goes to the runner as a hook; a job without one sends none', async () => {
    const result = await compilePipeline('build:\n  hooks:\n    pre_get_sources_script: [echo one, [echo two]]\n  script: make\nplain:\n  script: make\n', context);
    const [build, plain] = result.jobs;
    assert.ok(build && !isBridge(build) && plain && !isBridge(plain), JSON.stringify(result.errors));
    const payload = payloadFor(build, false);
    assert.deepEqual(payload.hooks, [{ name: 'pre_get_sources_script', script: ['echo one', 'echo two'] }]);
    assert.ok(Value.Check(JobPayloadSchema, payload), JSON.stringify([...Value.Errors(JobPayloadSchema, payload)].slice(0, 3)));
    assert.equal(payloadFor(plain, false).hooks, undefined);
  });

  test("a pull_policy GitLab refuses fails the pipeline with GitLab's messages", async () => {
    const cases: [string, string[]][] = [
      ['image: { name: alpine, pull_policy: sometimes }', ['jobs:build:image:pull_policy config is not included in the list']],
      ['image: { name: alpine, pull_policy: [always, sometimes, later] }', ['jobs:build:image:pull_policy config contains unknown values: sometimes, later']],
      ['image: { name: alpine, pull_policy: [] }', ["jobs:build:image:pull_policy config can't be blank"]],
      ['image: { name: alpine, pull_policy: 3 }', ['jobs:build:image:pull_policy config should be an array of strings or a string']],
      [
        'services: [{ name: redis, pull_policy: [always, 3] }]',
        ['jobs:build:services:service:pull_policy config should be an array of strings or a string', 'jobs:build:services:service:pull_policy config contains unknown values: 3'],
      ],
    ];
    for (const [entry, messages] of cases) {
      const result = await compilePipeline(`build:\n  ${entry}\n  script: make\n`, context);
      assert.equal(result.status, 'invalid', entry);
      assert.deepEqual(result.errors.map((error) => error.message), messages, entry);
    }
  });

  test('coverage_report goes to the runner as a report of its format, with its path, as GitLab sends it', async () => {
    const reports = 'artifacts:\n    reports:\n      coverage_report: { coverage_format: jacoco, path: build/jacoco.xml }\n      junit: [a.xml, b.xml]';
    const result = await compilePipeline(`build:\n  script: make\n  ${reports}\n`, context);
    const build = result.jobs.find((job): job is BuildJobDefinition => job.name === 'build' && !isBridge(job));
    assert.ok(build, JSON.stringify(result.errors));
    const sent = payloadFor(build, false).artifacts.map((artifact) => [artifact.artifact_type, artifact.name, artifact.artifact_format, artifact.paths]);
    assert.deepEqual(sent, [['jacoco', 'jacoco.xml', 'gzip', ['build/jacoco.xml']], ['junit', 'junit.xml', 'gzip', ['a.xml', 'b.xml']]]);
  });

  test('a bridge is refused: bridges never go to runners', async () => {
    const result = await compilePipeline('build:\n  script: make\ndownstream:\n  trigger: group/other\n', context);
    const bridge = result.jobs.find((job) => job.name === 'downstream');
    assert.ok(bridge && isBridge(bridge));
    // A definition read back from storage and mistyped: the guard must hold at run time too.
    const stored = JSON.parse(JSON.stringify(bridge)) as BuildJobDefinition;
    assert.throws(() => payloadFor(stored, false), /job "downstream" is a bridge \(trigger:\); bridges create downstream pipelines and never go to runners/);
    const build = result.jobs.find((job): job is BuildJobDefinition => job.name === 'build' && !isBridge(job));
    assert.ok(build);
    assert.equal(payloadFor(build, false).job_info.name, 'build');
  });
});
