import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { parseDotenv } from '../../src/coordinator/services/ci/runners/dotenv-reports.ts';
import { BOUNDARY, runnerRequest, uploadBody } from '../helpers/runner-artifacts.ts';
import { startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * `artifacts:reports:dotenv` over the runner protocol: the report is read when it is uploaded
 * (GitLab's limits and messages; a refused report is a 400 and nothing of it is kept), and its
 * variables reach the payloads of the jobs that take the reporting job's artifacts, above the
 * YAML's variables and below the project's.
 */
const CI = `
stages: [build, test]
variables:
  FROM_GLOBAL_YAML: global
build:
  stage: build
  script: ./build
  artifacts: { reports: { dotenv: build.env } }
other:
  stage: build
  script: ./other
  artifacts: { reports: { dotenv: other.env } }
everything:
  stage: test
  script: ./test
  variables: { FROM_JOB_YAML: job }
only-build:
  stage: test
  script: ./test
  dependencies: [build]
no-dependencies:
  stage: test
  script: ./test
  dependencies: []
needs-build:
  stage: test
  script: ./test
  needs: [build]
needs-without-artifacts:
  stage: test
  script: ./test
  needs: [{ job: build, artifacts: false }]
`;

type Payload = Record<string, unknown> & { id: number; token: string; job_info: { name: string }; variables: Array<{ key: string; value: string; public?: boolean }> };

/** What the job's shell ends up with: of several entries of a key, the last. */
function effective(payload: Payload | undefined): Map<string, string> {
  return new Map((payload?.variables ?? []).map((variable) => [variable.key, variable.value]));
}

describe('dotenv reports', () => {
  let fixture: RunnerJobsFixture;

  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(() => fixture.close());

  async function claimAll(runnerToken: string, count: number): Promise<Record<string, Payload>> {
    const byName: Record<string, Payload> = {};
    for (let index = 0; index < count; index++) {
      const answer = await fixture.requestJob(runnerToken);
      assert.equal(answer.status, 201, answer.text);
      const payload = answer.json as Payload;
      byName[payload.job_info.name] = payload;
    }
    return byName;
  }

  function uploadDotenv(payload: Payload, bytes: Buffer) {
    return runnerRequest(fixture.baseUrl, 'POST', `/jobs/${payload.id}/artifacts?artifact_type=dotenv&artifact_format=gzip`, {
      token: payload.token,
      body: uploadBody('.env.gz', bytes),
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    });
  }

  async function succeed(payload: Payload): Promise<void> {
    const response = await fetch(`${fixture.baseUrl}/api/v4/jobs/${payload.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: payload.token, state: 'success' }),
    });
    assert.equal(response.status, 200, await response.text());
  }

  it('hands the variables to the jobs that take the artifacts, with GitLab precedence', async () => {
    const project = await fixture.ciProject('dotenv-flow', CI);
    const runner = await fixture.register(project.runners_token);
    const created = await fixture.gantry.api('POST', `/projects/${project.id}/variables`, { body: { key: 'PROJECT_WINS', value: 'project' } });
    assert.equal(created.status, 201, created.text);
    await fixture.runPipeline(project.id);

    const builds = await claimAll(runner.token, 2);
    const build = builds.build!;
    const other = builds.other!;
    const buildReport = 'BUILD_VERSION=v1.2.3\r\nFROM_JOB_YAML = dotenv\nFROM_GLOBAL_YAML=dotenv\nPROJECT_WINS=dotenv\nSHARED=first\nSHARED=from-build\nURL=https://example.com/?a=b';
    const uploaded = await uploadDotenv(build, gzipSync(buildReport));
    assert.equal(uploaded.status, 201, uploaded.text);
    assert.equal((await uploadDotenv(other, gzipSync('SHARED=from-other\nOTHER=yes\n'))).status, 201);
    await succeed(build);
    await succeed(other);

    const tests = await claimAll(runner.token, 5);
    assert.equal((await fixture.requestJob(runner.token)).status, 204);
    const everything = effective(tests.everything);
    assert.equal(everything.get('BUILD_VERSION'), 'v1.2.3', 'CRLF line ending stripped');
    assert.equal(everything.get('URL'), 'https://example.com/?a=b', 'split at the first =');
    assert.equal(everything.get('FROM_JOB_YAML'), 'dotenv', 'dotenv wins over job YAML variables (key and value stripped)');
    assert.equal(everything.get('FROM_GLOBAL_YAML'), 'dotenv', 'and over global YAML variables');
    assert.equal(everything.get('PROJECT_WINS'), 'project', 'project variables win over dotenv');
    const [older, newer] = [build, other].sort((a, b) => a.id - b.id).map((job) => `from-${job.job_info.name}`);
    assert.equal(everything.get('SHARED'), newer, 'both earlier-stage jobs: the newer one wins a shared key');
    assert.equal(everything.get('OTHER'), 'yes');
    const dotenvEntries = tests.everything!.variables.filter((variable) => variable.key === 'SHARED');
    assert.deepEqual(dotenvEntries.map((variable) => variable.value), [older, newer], 'a key repeated in one report: its last value, once');
    assert.equal(tests.everything!.variables.find((variable) => variable.key === 'BUILD_VERSION')?.public, false);

    assert.equal(effective(tests['only-build']).get('SHARED'), 'from-build', 'dependencies: [build] takes build only');
    assert.equal(effective(tests['only-build']).get('OTHER'), undefined);
    assert.equal(effective(tests['needs-build']).get('BUILD_VERSION'), 'v1.2.3', 'needs with artifacts');
    assert.equal(effective(tests['needs-build']).get('OTHER'), undefined);
    assert.equal(effective(tests['no-dependencies']).get('BUILD_VERSION'), undefined, 'dependencies: [] takes none');
    assert.equal(effective(tests['needs-without-artifacts']).get('BUILD_VERSION'), undefined, 'needs with artifacts: false takes none');
  });

  it('reads a report of several files (one gzip member each, as the runner uploads them) file by file', async () => {
    const project = await fixture.ciProject('dotenv-files', 'build:\n  script: ./build\n  artifacts: { reports: { dotenv: [a.env, b.env] } }\n');
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const { build } = await claimAll(runner.token, 1);
    const report = Buffer.concat([gzipSync('FIRST=1\nLAST_OF_A=no-newline'), gzipSync('\uFEFFSECOND=2\nFIRST=from-b\n')]);
    const answer = await uploadDotenv(build!, report);
    assert.equal(answer.status, 201, answer.text);
    const stored = await fixture.gantry.coordinator.context.stores.jobArtifacts.dotenvVariablesForJobs([build!.id]);
    assert.deepEqual(
      stored.map((variable) => [variable.key, variable.value]),
      [['FIRST', 'from-b'], ['LAST_OF_A', 'no-newline'], ['SECOND', '2']],
      'a file not ending in a newline does not join the next file, whose BOM is dropped; the later file wins a key',
    );
  });

  it('refuses a report GitLab refuses with a 400 and its message, keeping nothing of it', async () => {
    const project = await fixture.ciProject('dotenv-refused', 'build:\n  script: ./build\n  artifacts: { reports: { dotenv: build.env } }\n');
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const { build } = await claimAll(runner.token, 1);
    const twenty = Array.from({ length: 20 }, (_, index) => `KEY_${index}=${index}`).join('\n');
    const refusals: Array<[string, Buffer, string]> = [
      ['21 variables', gzipSync(`${twenty}\nKEY_20=20\n`), 'Dotenv files cannot have more than 20 variables'],
      ['a key with a dash', gzipSync('GOOD=1\nBAD-KEY=2\n'), "Validation failed: Key can contain only letters, digits and '_'."],
      ['an empty key', gzipSync('=value\n'), "Validation failed: Key can't be blank, Key can contain only letters, digits and '_'."],
      ['an empty line', gzipSync('A=1\n\nB=2\n'), 'Invalid Format'],
      ['a comment', gzipSync('# settings\nA=1\n'), 'Invalid Format'],
      ['5,120 bytes of gzip', gzipSync(randomBytes(6000).toString('base64')).subarray(0, 5120), 'Dotenv Artifact Too Big. Maximum Allowable Size: 5120'],
      ['2 MiB, refused without being stored whole', randomBytes(2 * 1024 * 1024), 'Dotenv Artifact Too Big. Maximum Allowable Size: 5120'],
      ['a gzip bomb', gzipSync(`A=${'x'.repeat(2 * 1024 * 1024)}`), 'Dotenv Artifact Too Big. Maximum Allowable Size Unpacked: 65536'],
      ['bytes that are not gzip', Buffer.from('A=1\n'), 'Unable to read gzip stream'],
    ];
    for (const [what, bytes, message] of refusals) {
      const answer = await uploadDotenv(build!, bytes);
      assert.equal(answer.status, 400, `${what}: ${answer.text}`);
      assert.deepEqual(JSON.parse(answer.text), { message }, what);
    }
    assert.equal(await fixture.gantry.coordinator.context.stores.jobArtifacts.find(build!.id, 'dotenv'), undefined);
    assert.deepEqual(await fixture.gantry.coordinator.context.stores.jobArtifacts.dotenvVariablesForJobs([build!.id]), []);

    const damaged = gzipSync('A=1\n');
    damaged.writeUInt32LE(damaged.readUInt32LE(damaged.length - 8) ^ 1, damaged.length - 8);
    for (const [what, bytes, message] of [
      ['a checksum that does not match', damaged, 'Unable to read gzip stream'],
      ['bytes after the last member', Buffer.concat([gzipSync('A=1\n'), Buffer.from('junk')]), 'Unable to read gzip stream'],
      ['two members over the unpacked bound together', Buffer.concat([gzipSync(`A=${'x'.repeat(40_000)}\n`), gzipSync(`B=${'y'.repeat(40_000)}\n`)]), 'Dotenv Artifact Too Big. Maximum Allowable Size Unpacked: 65536'],
    ] as const) {
      const answer = await uploadDotenv(build!, bytes);
      assert.equal(answer.status, 400, `${what}: ${answer.text}`);
      assert.deepEqual(JSON.parse(answer.text), { message }, what);
    }

    const empty = await uploadDotenv(build!, Buffer.alloc(0));
    assert.equal(empty.status, 201, `an empty report has no member to read (GitLab reads until the end): ${empty.text}`);
    assert.deepEqual(await fixture.gantry.coordinator.context.stores.jobArtifacts.dotenvVariablesForJobs([build!.id]), []);
    await fixture.gantry.coordinator.context.stores.jobArtifacts.deleteForJob(build!.id, ['dotenv']);

    const accepted = await uploadDotenv(build!, gzipSync(`${twenty}\n`));
    assert.equal(accepted.status, 201, `20 variables are allowed: ${accepted.text}`);
    const stored = await fixture.gantry.coordinator.context.stores.jobArtifacts.dotenvVariablesForJobs([build!.id]);
    assert.deepEqual(stored.map((variable) => variable.key), Array.from({ length: 20 }, (_, index) => `KEY_${index}`));

    // The variables belong to the report's artifact: when it goes (erased, expired), they go.
    await fixture.gantry.coordinator.context.stores.jobArtifacts.deleteForJob(build!.id, ['dotenv']);
    assert.deepEqual(await fixture.gantry.coordinator.context.stores.jobArtifacts.dotenvVariablesForJobs([build!.id]), []);
  });
});

describe('parseDotenv (GitLab Ci::ParseDotenvArtifactService)', () => {
  it('reads each file of the report by itself: a last line without its newline ends there, each file may start with a BOM, a later file wins a key', () => {
    assert.deepEqual(parseDotenv(['A=1\nB=from-first', '\uFEFFC=3\nB=from-second\n']), [
      { key: 'A', value: '1' },
      { key: 'B', value: 'from-second' },
      { key: 'C', value: '3' },
    ]);
  });

  it('reads KEY=VALUE lines: stripped, split at the first =, a BOM dropped, the last value of a repeated key in its first place', () => {
    assert.deepEqual(parseDotenv(['\uFEFFA=1\n  B =  two words \nA=3\nC=\nD=x=y']), [
      { key: 'A', value: '3' },
      { key: 'B', value: 'two words' },
      { key: 'C', value: '' },
      { key: 'D', value: 'x=y' },
    ]);
    assert.deepEqual(parseDotenv(['']), []);
    assert.deepEqual(parseDotenv([]), []);
  });

  it('keeps quotes as they are (GitLab does not unquote)', () => {
    assert.deepEqual(parseDotenv([`A="quoted"\nB='single'\n`]), [
      { key: 'A', value: '"quoted"' },
      { key: 'B', value: "'single'" },
    ]);
  });
});
