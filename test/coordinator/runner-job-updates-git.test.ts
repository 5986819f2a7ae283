/**
 * Job tokens over git HTTP (`gitlab-ci-token:<job token>`), with the coordinator's default
 * verifier: the job's own project clones while the job runs, not once it finished, and no
 * other private project does, even one the job's user may read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobTokenDigest, newJobToken } from '../../src/coordinator/services/ci/runners/job-tokens.ts';
import { seedPipeline, moveJob } from '../helpers/ci-pipelines.ts';
import { startGitHttpFixture, type GitHttpFixture } from './git-http-fixtures.ts';
import { addMember, makeUser } from './groups-fixtures.ts';

let fixture: GitHttpFixture;

before(async () => {
  fixture = await startGitHttpFixture();
});
after(async () => {
  await fixture.close();
});

describe('job tokens over git HTTP', () => {
  it('clone the job project while the job runs; refused after it finished and for another private project', async () => {
    const { gantry } = fixture;
    const { stores } = gantry.coordinator.context;
    const user = await makeUser(gantry, 'ciuser');
    const project = await fixture.project(1, 'ci-own', { visibility: 'private', withReadme: true });
    const other = await fixture.project(1, 'ci-other', { visibility: 'private', withReadme: true });
    await addMember(gantry, { type: 'project', id: project.id }, user.id, 30);
    await addMember(gantry, { type: 'project', id: other.id }, user.id, 30);
    const seeded = await seedPipeline(gantry.coordinator, { projectId: project.id, userId: user.id, jobs: [{ name: 'build', stage: 'build' }] });
    const runner = await stores.runners.create({ runner_type: 'project_type', created_at: new Date().toISOString(), run_untagged: true }, 'git-runner-token', { projectIds: [project.id] });
    const token = newJobToken();
    const job = (await stores.ciTransactions.run((ci) => ci.jobQueue.claim(runner, { now: new Date().toISOString(), tokenDigest: jobTokenDigest(token) })))?.job;
    assert.equal(job?.id, seeded.jobs.build!.id);
    const credentials = { user: 'gitlab-ci-token', secret: token };

    const own = await fixture.git(['clone', fixture.url('root/ci-own', credentials), 'own']);
    assert.equal(own.code, 0, own.stderr);
    const elsewhere = await fixture.git(['clone', fixture.url('root/ci-other', credentials), 'elsewhere']);
    assert.notEqual(elsewhere.code, 0);
    const wrong = await fixture.git(['clone', fixture.url('root/ci-own', { user: 'gitlab-ci-token', secret: newJobToken() }), 'wrong']);
    assert.notEqual(wrong.code, 0);
    const push = await fixture.git(['push', 'origin', 'HEAD:refs/heads/from-job'], { cwd: `${fixture.workDir}/own` });
    assert.notEqual(push.code, 0);

    await moveJob(gantry.coordinator, job!, 'success');
    const afterwards = await fixture.git(['clone', fixture.url('root/ci-own', credentials), 'afterwards']);
    assert.notEqual(afterwards.code, 0);
    assert.match(afterwards.stderr, /Authentication failed|Access denied|403|401/);
  });
});
