import assert from 'node:assert/strict';
import { createHash, createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CiSigningKey } from '../../src/coordinator/services/ci/signing-key.ts';
import { IdTokens } from '../../src/coordinator/services/ci/id-tokens.ts';
import { startTwoCoordinators, addCiVariable, startRunnerJobsFixture, type RunnerJobsFixture } from './runner-job-fixtures.ts';

/**
 * `id_tokens`: the job a runner gets carries each token as a masked, non-public variable, an
 * RS256 JWT that the keys of the OIDC discovery verify, with GitLab's JwtV2 claims.
 */
interface JobVariableWire {
  key: string;
  value: string;
  public: boolean;
  masked: boolean;
}

interface Jwks {
  keys: Array<JsonWebKey & { kid: string; use: string; alg: string }>;
}

function decodeSegment(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as Record<string, unknown>;
}

/** The token's header and claims once its signature checks against one of the JWKS' keys. */
function verifiedClaims(token: string, jwks: Jwks): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [header, payload, signature] = token.split('.');
  assert.ok(header && payload && signature, `three segments: ${token}`);
  const decodedHeader = decodeSegment(header);
  const jwk = jwks.keys.find((key) => key.kid === decodedHeader.kid);
  assert.ok(jwk, `a key of the JWKS has kid ${String(decodedHeader.kid)}`);
  const key = createPublicKey({ key: { kty: jwk.kty, e: jwk.e, n: jwk.n }, format: 'jwk' });
  assert.equal(verify('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url')), true, 'the signature verifies');
  return { header: decodedHeader, claims: decodeSegment(payload) };
}

async function getJson(fixture: RunnerJobsFixture, url: string): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const response = await fetch(`${fixture.baseUrl}${url}`);
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

async function claimJob(fixture: RunnerJobsFixture, token: string): Promise<Record<string, unknown>> {
  const answer = await fixture.requestJob(token);
  assert.equal(answer.status, 201, answer.text);
  return answer.json;
}

const CI = `
default:
  id_tokens:
    DEFAULT_TOKEN:
      aud: https://default.example.com
deploy:
  environment:
    name: production
  id_tokens:
    VAULT_ID_TOKEN:
      aud: https://vault.example.com
    CLOUD_TOKEN:
      aud: [https://cloud.example.com, "$AUDIENCE_HOST/\${CI_PROJECT_NAME}"]
  script: [make]
`;

describe('id_tokens handed to runners', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(async () => {
    await fixture?.close();
  });

  it('serves the discovery document and its keys without sign-in', async () => {
    const configuration = await getJson(fixture, '/.well-known/openid-configuration');
    assert.equal(configuration.status, 200);
    assert.equal(configuration.json.issuer, 'http://gantry.test');
    assert.equal(configuration.json.jwks_uri, 'http://gantry.test/oauth/discovery/keys');
    assert.deepEqual(configuration.json.id_token_signing_alg_values_supported, ['RS256']);
    assert.deepEqual(configuration.json.subject_types_supported, ['public']);
    const keys = await getJson(fixture, '/oauth/discovery/keys');
    assert.equal(keys.status, 200);
    const [key, ...others] = (keys.json as unknown as Jwks).keys;
    assert.equal(others.length, 0);
    assert.deepEqual(Object.keys(key!).sort(), ['alg', 'e', 'kid', 'kty', 'n', 'use']);
    assert.equal(key!.kty, 'RSA');
    assert.equal(key!.use, 'sig');
    assert.equal(key!.alg, 'RS256');
    const thumbprint = createHash('sha256').update(`{"e":"${String(key!.e)}","kty":"RSA","n":"${String(key!.n)}"}`).digest('base64url');
    assert.equal(key!.kid, thumbprint, "kid: the key's RFC 7638 thumbprint");
    assert.match(keys.headers.get('cache-control') ?? '', /max-age=86400/);
  });

  it('gives each token as a masked variable whose JWT the discovery keys verify, with GitLab\'s claims', async () => {
    const project = await fixture.ciProject('oidc', CI);
    await addCiVariable(fixture, `/projects/${project.id}`, 'AUDIENCE_HOST', 'https://aud.example.com');
    const runner = await fixture.register(project.runners_token);
    const pipelineId = await fixture.runPipeline(project.id);
    const job = await claimJob(fixture, runner.token);
    const variables = job.variables as JobVariableWire[];
    const tokens = variables.filter((variable) => ['VAULT_ID_TOKEN', 'CLOUD_TOKEN', 'DEFAULT_TOKEN'].includes(variable.key));
    assert.deepEqual(tokens.map((variable) => variable.key), ['VAULT_ID_TOKEN', 'CLOUD_TOKEN'], "the job's own tokens replace the default's");
    for (const variable of tokens) assert.deepEqual([variable.public, variable.masked], [false, true], variable.key);

    const jwks = (await getJson(fixture, '/oauth/discovery/keys')).json as unknown as Jwks;
    const vault = verifiedClaims(tokens[0]!.value, jwks);
    assert.deepEqual(vault.header, { kid: jwks.keys[0]!.kid, typ: 'JWT', alg: 'RS256' });
    const { claims } = vault;
    const projectPath = String((await fixture.gantry.api('GET', `/projects/${project.id}`)).json.path_with_namespace);
    assert.equal(claims.iss, 'http://gantry.test');
    assert.equal(claims.aud, 'https://vault.example.com');
    assert.equal(claims.sub, `project_path:${projectPath}:ref_type:branch:ref:main`);
    assert.equal(claims.project_path, projectPath);
    assert.equal(claims.project_id, String(project.id));
    assert.equal(claims.namespace_id, String(fixture.groupId));
    assert.equal(claims.namespace_path, projectPath.split('/')[0]);
    assert.equal(claims.user_id, '1');
    assert.equal(claims.user_login, 'root');
    // Its level from memberships (root made the group, so owns it), as GitLab's human_max_access names it.
    assert.equal(claims.user_access_level, 'owner');
    // Not a fork's merge request: the job's project is the project the code comes from.
    assert.deepEqual([claims.job_project_id, claims.job_project_path, claims.job_namespace_id, claims.job_namespace_path], [claims.project_id, claims.project_path, claims.namespace_id, claims.namespace_path]);
    assert.equal(claims.pipeline_id, String(pipelineId));
    assert.equal(claims.pipeline_source, 'api');
    assert.equal(claims.job_id, String(job.id));
    assert.equal(claims.ref, 'main');
    assert.equal(claims.ref_type, 'branch');
    assert.equal(claims.ref_path, 'refs/heads/main');
    assert.equal(claims.ref_protected, 'false');
    assert.equal(claims.environment, 'production');
    assert.equal(claims.environment_protected, 'false');
    assert.equal(claims.deployment_tier, 'production');
    assert.equal(claims.environment_action, 'start');
    assert.equal(claims.runner_id, runner.id);
    assert.equal(claims.runner_environment, 'self-hosted');
    assert.equal(claims.sha, project.headSha);
    assert.equal(claims.ci_config_sha, project.headSha);
    assert.equal(claims.ci_config_ref_uri, `gantry.test/${projectPath}//.gitlab-ci.yml@refs/heads/main`);
    assert.equal(claims.project_visibility, 'public');
    assert.equal(typeof claims.jti, 'string');
    const iat = claims.iat as number;
    assert.ok(Math.abs(iat - Date.now() / 1000) < 60, `iat ${iat} is now`);
    assert.equal(claims.nbf, iat - 5);
    assert.equal(claims.exp, iat + (job.runner_info as { timeout: number }).timeout, "exp: the job's timeout after iat");

    const cloud = verifiedClaims(tokens[1]!.value, jwks).claims;
    assert.deepEqual(cloud.aud, ['https://cloud.example.com', 'https://aud.example.com/oidc'], "a list of audiences, each with its variables expanded");
    assert.notEqual(cloud.jti, claims.jti, 'each token its own jti');
  });
});

describe('id_tokens: user_access_level', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(async () => {
    await fixture?.close();
  });

  it("names the pipeline user's membership level, and none for an administrator who is no member (GitLab's human_max_access)", async () => {
    const project = await fixture.ciProject('oidc-levels', 'deploy:\n  id_tokens:\n    TOKEN:\n      aud: https://vault.example.com\n  script: [make]\n');
    const runner = await fixture.register(project.runners_token);
    const levelOfJobBy = async (token: string): Promise<unknown> => {
      const created = await fixture.gantry.api('POST', `/projects/${project.id}/pipeline`, { body: { ref: 'main' }, token });
      assert.equal(created.status, 201, created.text);
      const job = await claimJob(fixture, runner.token);
      const variable = (job.variables as JobVariableWire[]).find((candidate) => candidate.key === 'TOKEN');
      assert.ok(variable);
      return decodeSegment(variable.value.split('.')[1] ?? '').user_access_level;
    };
    const admin = await fixture.gantry.createUser('oidc-admin', { admin: true });
    assert.equal(await levelOfJobBy(admin.token), null);
    const member = await fixture.gantry.api('POST', `/projects/${project.id}/members`, { body: { user_id: admin.id, access_level: 40 } });
    assert.equal(member.status, 201, member.text);
    assert.equal(await levelOfJobBy(admin.token), 'maintainer');
  });

  it("a fork's merge request pipeline: project_* and sub name the fork, job_project_* the project the job runs in", async () => {
    const idTokens = new IdTokens(new CiSigningKey({ store: fixture.gantry.coordinator.context.stores.ciSigningKey }));
    const [token] = await idTokens.variables({
      idTokens: { TOKEN: { aud: 'https://vault.example.com' } },
      externalUrl: 'http://gantry.test',
      job: { id: 7, protected: false, environment: null, environmentDefinition: null },
      project: { id: 1, path: 'team/app', visibility: 'public' },
      namespace: { id: 2, path: 'team' },
      source: { project: { id: 3, path: 'alice/app' }, namespace: { id: 4, path: 'alice' } },
      pipeline: { id: 5, source: 'merge_request_event', ref: 'fix', tag: false, sha: 'a'.repeat(40), configPath: null },
      user: { id: 6, login: 'alice', email: 'alice@example.com', accessLevel: 'developer' },
      runnerId: 8,
      timeoutSeconds: 3600,
      variables: [],
    });
    const claims = decodeSegment(token?.value.split('.')[1] ?? '');
    assert.deepEqual([claims.project_id, claims.project_path, claims.namespace_id, claims.namespace_path], ['3', 'alice/app', '4', 'alice']);
    assert.deepEqual([claims.job_project_id, claims.job_project_path, claims.job_namespace_id, claims.job_namespace_path], ['1', 'team/app', '2', 'team']);
    assert.equal(claims.sub, 'project_path:alice/app:ref_type:branch:ref:fix');
    assert.equal(claims.ci_config_ref_uri, 'gantry.test/team/app//.gitlab-ci.yml@refs/heads/fix');
    assert.equal(claims.user_access_level, 'developer');
  });
});

const postgres = process.env.GANTRY_TEST_DATABASE_URL !== undefined;


describe('id_tokens when the signing key cannot be read', () => {
  let fixture: RunnerJobsFixture;
  before(async () => {
    fixture = await startRunnerJobsFixture();
  });
  after(async () => {
    await fixture?.close();
  });

  it('hands the job out without its tokens, as GitLab', async () => {
    await fixture.gantry.coordinator.context.stores.ciSigningKey.create('not a key', new Date().toISOString());
    const project = await fixture.ciProject('oidc-broken', 'deploy:\n  id_tokens:\n    TOKEN:\n      aud: https://vault.example.com\n  script: [make]\n');
    const runner = await fixture.register(project.runners_token);
    await fixture.runPipeline(project.id);
    const job = await claimJob(fixture, runner.token);
    assert.equal((job.variables as JobVariableWire[]).some((variable) => variable.key === 'TOKEN'), false);
  });
});

describe('id_tokens across coordinators', { skip: !postgres && 'needs PostgreSQL: bash scripts/with-postgres.sh' }, () => {
  let a: RunnerJobsFixture;
  let b: RunnerJobsFixture;
  let pair: Awaited<ReturnType<typeof startTwoCoordinators>> | undefined;

  before(async () => {
    pair = await startTwoCoordinators();
    ({ a, b } = pair);
  });
  after(async () => {
    await pair?.close();
  });

  it('signs with one key made once, both coordinators asking for it at once', async () => {
    const [keysOfA, keysOfB] = await Promise.all([getJson(a, '/oauth/discovery/keys'), getJson(b, '/oauth/discovery/keys')]);
    assert.deepEqual(keysOfA.json, keysOfB.json);
    const project = await a.ciProject('oidc-shared', 'one:\n  id_tokens: { T: { aud: x } }\n  script: [make]\ntwo:\n  id_tokens: { T: { aud: y } }\n  script: [make]\n');
    const runner = await a.register(project.runners_token);
    await a.runPipeline(project.id);
    const jwks = keysOfA.json as unknown as Jwks;
    for (const coordinator of [a, b]) {
      const job = await claimJob(coordinator, runner.token);
      const token = (job.variables as JobVariableWire[]).find((variable) => variable.key === 'T');
      assert.ok(token);
      verifiedClaims(token.value, jwks);
    }
  });
});
