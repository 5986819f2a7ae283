import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PipelineRecord } from '../../src/storage/types-ci.ts';
import type { ProjectRecord } from '../../src/storage/types.ts';
import { ROOT_TOKEN } from '../helpers/coordinator.ts';
import { gitSucceeds, startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { makeGroup } from './groups-fixtures.ts';

const CI = `
stages: [build, test]
build:
  stage: build
  script: make
code:
  stage: test
  script: make test
  rules:
    - changes: [src/**/*]
docs:
  stage: test
  script: make docs
  rules:
    - changes: [docs/**/*]
`;

describe('pipelines for pushes over git HTTP', () => {
  let fixture: GitHttpFixture;
  let project: ProjectRecord;
  let cwd: string;

  const git = (...args: string[]): Promise<string> => gitSucceeds(fixture, cwd, args);

  async function pipelineFor(sha: string, ref: string): Promise<PipelineRecord> {
    const { pipelines } = fixture.gantry.coordinator.context.stores;
    for (let attempt = 0; attempt < 400; attempt++) {
      const found = await pipelines.latestFor(project.id, sha, ref);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no pipeline for ${ref} at ${sha}`);
  }

  async function jobNames(pipelineId: number): Promise<Record<string, string>> {
    const { items } = await fixture.gantry.coordinator.context.stores.jobs.list({ pipelineId, sort: 'asc' }, { offset: 0, limit: 50 });
    return Object.fromEntries(items.map((job) => [job.name, job.status]));
  }

  before(async () => {
    fixture = await startGitHttpFixture({ coordinator: { ci: { taskPollIntervalMs: 50 } } });
    const group = await makeGroup(fixture.gantry, 'ci-team');
    project = await fixture.project(group.id, 'app', { withReadme: true });
    cwd = path.join(fixture.workDir, 'app');
    const clone = await fixture.git(['clone', fixture.url('ci-team/app', { user: 'root', secret: ROOT_TOKEN }), cwd]);
    assert.equal(clone.code, 0, clone.stderr);
  });
  after(() => fixture.close());

  it('creates a push pipeline with before_sha, the pusher and its first jobs pending', async () => {
    const before = await git('rev-parse', 'HEAD');
    writeFileSync(path.join(cwd, '.gitlab-ci.yml'), CI);
    mkdirSync(path.join(cwd, 'src'));
    writeFileSync(path.join(cwd, 'src', 'main.c'), 'int main() {}\n');
    await git('add', '.');
    await git('commit', '-m', 'add CI');
    await git('push', 'origin', 'HEAD:main');
    const sha = await git('rev-parse', 'HEAD');

    const pipeline = await pipelineFor(sha, 'main');
    assert.equal(pipeline.source, 'push');
    assert.equal(pipeline.before_sha, before);
    assert.equal(pipeline.user_id, 1);
    assert.equal(pipeline.status, 'pending');
    assert.deepEqual(await jobNames(pipeline.id), { build: 'pending', code: 'created' });
  });

  it('gives rules:changes the paths the push changed', async () => {
    mkdirSync(path.join(cwd, 'docs'));
    writeFileSync(path.join(cwd, 'docs', 'guide.md'), '# guide\n');
    await git('add', '.');
    await git('commit', '-m', 'docs only');
    await git('push', 'origin', 'HEAD:main');
    const pipeline = await pipelineFor(await git('rev-parse', 'HEAD'), 'main');
    assert.deepEqual(await jobNames(pipeline.id), { build: 'pending', docs: 'created' });
  });

  it('creates tag pipelines and new-branch pipelines (changes always match), none for deletions', async () => {
    const sha = await git('rev-parse', 'HEAD');
    await git('tag', 'v1.0');
    await git('push', 'origin', 'v1.0', 'HEAD:refs/heads/feature');
    const tag = await pipelineFor(sha, 'v1.0');
    assert.equal(tag.tag, true);
    assert.deepEqual(await jobNames(tag.id), { build: 'pending', code: 'created', docs: 'created' });
    const branch = await pipelineFor(sha, 'feature');
    assert.equal(branch.tag, false);
    assert.equal(branch.before_sha, '0'.repeat(40));

    await git('push', 'origin', ':feature');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { items } = await fixture.gantry.coordinator.context.stores.pipelines.list({ projectId: project.id, ref: 'feature' }, { offset: 0, limit: 10 });
    assert.equal(items.length, 1, 'the deletion created no pipeline');
  });

  it('saves a skipped pipeline for [ci skip] and a failed one with yaml_errors for a broken file', async () => {
    writeFileSync(path.join(cwd, 'note.txt'), 'x\n');
    await git('add', '.');
    await git('commit', '-m', 'chore: note [ci skip]');
    await git('push', 'origin', 'HEAD:main');
    const skipped = await pipelineFor(await git('rev-parse', 'HEAD'), 'main');
    assert.equal(skipped.status, 'skipped');
    assert.deepEqual(await jobNames(skipped.id), {});

    writeFileSync(path.join(cwd, '.gitlab-ci.yml'), 'build: [not, a, job\n');
    await git('commit', '-am', 'break CI');
    await git('push', 'origin', 'HEAD:main');
    const failed = await pipelineFor(await git('rev-parse', 'HEAD'), 'main');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failure_reason, 'config_error');
    assert.ok(failed.yaml_errors && failed.yaml_errors.length > 0);
    assert.deepEqual(await jobNames(failed.id), {});
  });
});
