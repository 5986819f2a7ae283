/** `rules:changes:compare_to` on the coordinator: refs of a real repository, merge bases, the error of a ref that names no commit. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

const CI = `
variables:
  BASE_BRANCH: main
code:
  script: make
  rules:
    - changes:
        paths: [src/**/*]
        compare_to: $BASE_BRANCH
docs-since-main:
  script: make docs
  rules:
    - changes:
        paths: [docs/**/*]
        compare_to: refs/heads/main
code-since-tag:
  script: make
  rules:
    - changes:
        paths: [src/**/*]
        compare_to: v1
docs-since-tag:
  script: make docs
  rules:
    - changes:
        paths: [docs/**/*]
        compare_to: refs/tags/v1
main-docs:
  script: make docs
  rules:
    - changes:
        paths: [docs/main.md]
        compare_to: main
plain-docs:
  script: make docs
  rules:
    - changes: [docs/**/*]
`;

const INVALID = `
stages: [build, test]
check:
  stage: test
  script: check
  rules:
    - changes:
        paths: [src/**/*]
        compare_to: no-such-branch
build:
  stage: build
  script: make
`;

const INVALID_MESSAGE = 'Failed to parse rule for check: rules:changes:compare_to is not a valid ref';

describe('rules:changes:compare_to in pipeline creation', () => {
  let gantry: TestCoordinator;
  let projectId: number;
  let firstSha: string;

  async function commit(branch: string, files: Record<string, string>, startBranch?: string): Promise<string> {
    const actions = Object.entries(files).map(([path, content]) => ({ action: path === '.gitlab-ci.yml' || path === 'src/app.c' ? 'update' : 'create', file_path: path, content }));
    const answer = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: { branch, ...(startBranch ? { start_branch: startBranch } : {}), commit_message: `change ${Object.keys(files).join(' ')}`, actions },
    });
    assert.equal(answer.status, 201, answer.text);
    return answer.json.id as string;
  }

  async function jobsOfPipelineOn(ref: string): Promise<string[]> {
    const pipeline = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref } });
    assert.equal(pipeline.status, 201, pipeline.text);
    const jobs = await gantry.api('GET', `/projects/${projectId}/pipelines/${pipeline.json.id}/jobs`);
    return jobs.list.map((job) => String(job.name)).sort();
  }

  before(async () => {
    gantry = await startTestCoordinator();
    const created = await gantry.api('POST', '/projects', { body: { name: 'compare', initialize_with_readme: true } });
    projectId = created.json.id as number;
    const first = await gantry.api('POST', `/projects/${projectId}/repository/commits`, {
      body: {
        branch: 'main', commit_message: 'CI',
        actions: [
          { action: 'create', file_path: '.gitlab-ci.yml', content: CI },
          { action: 'create', file_path: 'src/app.c', content: 'int main() {}\n' },
        ],
      },
    });
    assert.equal(first.status, 201, first.text);
    firstSha = first.json.id as string;
    const tag = await gantry.api('POST', `/projects/${projectId}/repository/tags`, { body: { tag_name: 'v1', ref: 'main' } });
    assert.equal(tag.status, 201, tag.text);
    // feature: a docs change, then a code change; main moves on with docs of its own afterwards.
    await commit('feature', { 'docs/feature.md': '# feature\n' }, 'main');
    await commit('feature', { 'src/app.c': 'int main() { return 0; }\n' });
    await commit('main', { 'docs/main.md': '# main\n' });
  });
  after(() => gantry.close());

  it('matches the paths changed since the merge base of the named branch or tag, in an API pipeline', async () => {
    // Since main's merge base: feature's docs and code, not main's own later docs (main-docs). Plain
    // changes in an API pipeline always hold.
    assert.deepEqual(await jobsOfPipelineOn('feature'), ['code', 'code-since-tag', 'docs-since-main', 'docs-since-tag', 'plain-docs']);
    // On main itself: nothing since main; since v1, only docs.
    assert.deepEqual(await jobsOfPipelineOn('main'), ['docs-since-tag', 'plain-docs']);
  });

  it('names a commit by its SHA, and expands the variables of compare_to', async () => {
    const ci = CI.replace('BASE_BRANCH: main', `BASE_BRANCH: ${firstSha}`).replace('compare_to: refs/heads/main', `compare_to: ${firstSha.slice(0, 12)}`);
    await commit('main', { '.gitlab-ci.yml': ci });
    // Since the first commit, main changed docs and the CI file only.
    assert.deepEqual(await jobsOfPipelineOn('main'), ['docs-since-main', 'docs-since-tag', 'plain-docs']);
  });

  it('refuses a pipeline whose compare_to names no commit, and a dry-run lint reports it', async () => {
    await commit('broken', { '.gitlab-ci.yml': INVALID }, 'main');
    const refused = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'broken' } });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.json.message, { base: [INVALID_MESSAGE] });

    const dry = await gantry.api('POST', `/projects/${projectId}/ci/lint`, { body: { content: INVALID, dry_run: true, ref: 'broken' } });
    assert.equal(dry.json.valid, false, dry.text);
    assert.deepEqual(dry.json.errors, [INVALID_MESSAGE]);
    // Without a dry run the rules are not evaluated against the repository, as GitLab's static lint.
    const stat = await gantry.api('POST', `/projects/${projectId}/ci/lint`, { body: { content: INVALID } });
    assert.equal(stat.json.valid, true, stat.text);
  });

  it('filters the pipeline out when a workflow rule names no commit', async () => {
    const workflow = `workflow:\n  rules:\n    - changes:\n        paths: [src/**/*]\n        compare_to: nope\n    - when: always\nbuild:\n  script: make\n`;
    await commit('filtered', { '.gitlab-ci.yml': workflow }, 'main');
    const refused = await gantry.api('POST', `/projects/${projectId}/pipeline`, { body: { ref: 'filtered' } });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.json.message, { base: ['Pipeline filtered out by workflow rules.'] });
  });
});
