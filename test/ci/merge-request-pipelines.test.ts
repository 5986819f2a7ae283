import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compilePipeline, isBridge, toJobPayload, type CompileContext, type CompileResult, type MergeRequestInfo } from '../../src/ci/index.ts';

const request: MergeRequestInfo = {
  id: 31,
  iid: 4,
  refPath: 'refs/merge-requests/4/head',
  projectId: 7,
  projectPath: 'group/app',
  projectUrl: 'https://ci.example.com/group/app',
  sourceProjectId: 8,
  sourceProjectPath: 'alice/app',
  sourceProjectUrl: 'https://ci.example.com/alice/app',
  sourceBranch: 'feature/Login',
  targetBranch: 'main',
  title: 'Add login',
  labels: ['ui', 'backend'],
  milestone: 'v1',
  assignees: ['bob', 'alice'],
  diffBaseSha: 'b'.repeat(40),
};

function context(overrides: Partial<CompileContext> = {}): CompileContext {
  return {
    project: { id: 7, path: 'group/app', defaultBranch: 'main' },
    ref: 'feature/Login',
    refType: 'branch',
    sha: 'a'.repeat(40),
    commitMessage: 'Add login',
    source: 'merge_request_event',
    mergeRequest: request,
    changedPaths: ['src/login.ts'],
    files: { readFile: async () => null },
    ...overrides,
  };
}

const push = (overrides: Partial<CompileContext> = {}) => context({ source: 'push', mergeRequest: undefined, ...overrides });

function jobNames(result: CompileResult): string[] {
  return result.status === 'created' ? result.jobs.map((job) => job.name) : [];
}

describe('merge request pipelines in the compiler', () => {
  test('rules:if on CI_PIPELINE_SOURCE selects the job in the merge request pipeline and not in the push', async () => {
    const yaml = `
mr:
  script: [x]
  rules: [{ if: '$CI_PIPELINE_SOURCE == "merge_request_event"' }]
branch:
  script: [x]
  rules: [{ if: '$CI_COMMIT_BRANCH' }]
`;
    assert.deepEqual(jobNames(await compilePipeline(yaml, context())), ['mr']);
    assert.deepEqual(jobNames(await compilePipeline(yaml, push())), ['branch']);
  });

  test('a job with neither rules nor only does not run for a merge request; only: [merge_requests] does', async () => {
    const yaml = 'plain: { script: [x] }\nmr: { script: [x], only: [merge_requests] }\nexcept_mr: { script: [x], except: [merge_requests] }\n';
    const result = await compilePipeline(yaml, context());
    assert.deepEqual(jobNames(result), ['mr']);
    assert.deepEqual(jobNames(await compilePipeline(yaml, push())), ['plain', 'except_mr']);
  });

  test('no job for merge requests: filtered, no pipeline', async () => {
    const result = await compilePipeline('plain: { script: [x] }\n', context());
    assert.equal(result.status, 'filtered');
  });

  test('only:refs patterns do not match a merge request pipeline; its ref path does', async () => {
    const yaml = 'pattern: { script: [x], only: [/^feature/] }\nname: { script: [x], only: [feature/Login] }\npath: { script: [x], only: [refs/merge-requests/4/head] }\n';
    assert.deepEqual(jobNames(await compilePipeline(yaml, context())), ['path']);
    assert.deepEqual(jobNames(await compilePipeline(yaml, push())), ['pattern', 'name']);
  });

  test('workflow:rules can allow merge request pipelines for jobs without rules', async () => {
    const yaml = `
workflow:
  rules:
    - if: $CI_MERGE_REQUEST_IID
    - if: $CI_COMMIT_BRANCH && $CI_OPEN_MERGE_REQUESTS
      when: never
    - if: $CI_COMMIT_BRANCH
job:
  script: [x]
  rules: [{ when: always }]
`;
    assert.deepEqual(jobNames(await compilePipeline(yaml, context())), ['job']);
    const filtered = await compilePipeline('workflow: { rules: [{ if: $CI_COMMIT_BRANCH }] }\njob: { script: [x], rules: [{ when: always }] }\n', context());
    assert.equal(filtered.status, 'filtered');
  });

  test('the CI_MERGE_REQUEST_* variables reach rules; CI_COMMIT_BRANCH does not exist; CI_COMMIT_REF_NAME is the source branch', async () => {
    const yaml = `
labels: { script: [x], rules: [{ if: '$CI_MERGE_REQUEST_LABELS == "backend,ui"' }] }
target: { script: [x], rules: [{ if: '$CI_MERGE_REQUEST_TARGET_BRANCH_NAME == "main" && $CI_MERGE_REQUEST_SOURCE_PROJECT_PATH == "alice/app"' }] }
ref_name: { script: [x], rules: [{ if: '$CI_COMMIT_REF_NAME == "feature/Login"' }] }
branch: { script: [x], rules: [{ if: $CI_COMMIT_BRANCH }] }
`;
    assert.deepEqual(jobNames(await compilePipeline(yaml, context())), ['labels', 'target', 'ref_name']);
  });

  test('rules:changes reads the paths given (the diff against the merge base)', async () => {
    const yaml = `
src: { script: [x], rules: [{ if: $CI_MERGE_REQUEST_IID, changes: ['src/**/*'] }] }
docs: { script: [x], rules: [{ if: $CI_MERGE_REQUEST_IID, changes: ['docs/**/*'] }] }
`;
    assert.deepEqual(jobNames(await compilePipeline(yaml, context())), ['src']);
    assert.deepEqual(jobNames(await compilePipeline(yaml, context({ changedPaths: ['docs/a.md'] }))), ['docs']);
  });

  test('the job payload: the source branch as ref name, no CI_COMMIT_BRANCH, CI_MERGE_REQUEST_*, the request ref fetched', async () => {
    const result = await compilePipeline('mr: { script: [x], only: [merge_requests] }\n', context());
    assert.equal(result.status, 'created');
    const job = result.jobs[0];
    assert.ok(job && !isBridge(job));
    const payload = toJobPayload(
      job,
      { jobId: 42, pipelineId: 9, pipelineIid: 3, projectId: 7 },
      { jobToken: 'job-token-123' },
      { repoUrl: 'https://gitlab-ci-token:job-token-123@ci.example.com/group/app.git', projectPath: 'group/app', ref: request.refPath, refType: 'branch', sha: 'a'.repeat(40) },
      { url: 'https://ci.example.com', version: '17.0.0', revision: 'abc' },
      { source: 'merge_request_event', mergeRequest: request },
    );
    const value = (key: string) => payload.variables.find((variable) => variable.key === key)?.value;
    assert.equal(payload.git_info.ref, 'refs/merge-requests/4/head');
    assert.deepEqual(payload.git_info.refspecs, ['+refs/pipelines/9:refs/pipelines/9', '+refs/merge-requests/4/head:refs/merge-requests/4/head']);
    assert.equal(value('CI_COMMIT_REF_NAME'), 'feature/Login');
    assert.equal(value('CI_COMMIT_REF_SLUG'), 'feature-login');
    assert.equal(value('CI_COMMIT_BRANCH'), undefined);
    assert.equal(value('CI_PIPELINE_SOURCE'), 'merge_request_event');
    assert.equal(value('CI_MERGE_REQUEST_IID'), '4');
    assert.equal(value('CI_MERGE_REQUEST_ID'), '31');
    assert.equal(value('CI_MERGE_REQUEST_REF_PATH'), 'refs/merge-requests/4/head');
    assert.equal(value('CI_MERGE_REQUEST_LABELS'), 'backend,ui');
    assert.equal(value('CI_MERGE_REQUEST_ASSIGNEES'), 'bob,alice');
    assert.equal(value('CI_MERGE_REQUEST_MILESTONE'), 'v1');
    assert.equal(value('CI_MERGE_REQUEST_SOURCE_PROJECT_ID'), '8');
    assert.equal(value('CI_MERGE_REQUEST_SOURCE_PROJECT_URL'), 'https://ci.example.com/alice/app');
    assert.equal(value('CI_MERGE_REQUEST_EVENT_TYPE'), 'detached');
    assert.equal(value('CI_MERGE_REQUEST_SOURCE_BRANCH_SHA'), '');
    assert.equal(value('CI_MERGE_REQUEST_TARGET_BRANCH_SHA'), '');
    assert.equal(value('CI_MERGE_REQUEST_DIFF_BASE_SHA'), 'b'.repeat(40));
    assert.equal(value('CI_MERGE_REQUEST_APPROVED'), undefined);
  });

  test('no labels, milestone or assignees: those variables are absent', async () => {
    const bare = { ...request, labels: [], milestone: null, assignees: [] };
    const result = await compilePipeline('mr: { script: [x], rules: [{ if: $CI_MERGE_REQUEST_LABELS }, { if: $CI_MERGE_REQUEST_MILESTONE }, { if: $CI_MERGE_REQUEST_ASSIGNEES }] }\n', context({ mergeRequest: bare }));
    assert.equal(result.status, 'filtered');
  });
});
