import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
}

interface OpenApiOperation {
  summary?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
}

type OpenApiDocument = { paths: Record<string, Record<string, OpenApiOperation>> };

/** Routes of the groups, members and users area with parameters they must document (`in:name`, `body:name`). */
const EXPECTED: ReadonlyArray<[method: string, path: string, parameters: string[]]> = [
  ['get', '/api/v4/groups', ['query:all_available', 'query:order_by', 'query:skip_groups', 'query:per_page']],
  ['post', '/api/v4/groups', ['body:name', 'body:path', 'body:parent_id', 'body:visibility']],
  ['get', '/api/v4/groups/{id}', ['path:id']],
  ['put', '/api/v4/groups/{id}', ['path:id', 'body:description']],
  ['delete', '/api/v4/groups/{id}', ['path:id']],
  ['get', '/api/v4/groups/{id}/subgroups', ['path:id', 'query:search']],
  ['get', '/api/v4/groups/{id}/projects', ['path:id', 'query:simple', 'query:starred']],
  ['post', '/api/v4/groups/{id}/share', ['path:id', 'body:group_id', 'body:group_access', 'body:expires_at']],
  ['delete', '/api/v4/groups/{id}/share/{group_id}', ['path:id', 'path:group_id']],
  ['post', '/api/v4/groups/{id}/projects/{project_id}', ['path:id', 'path:project_id']],
  ['get', '/api/v4/projects/{id}/members', ['path:id', 'query:query', 'query:user_ids']],
  ['get', '/api/v4/groups/{id}/members/all', ['path:id', 'query:page']],
  ['get', '/api/v4/groups/{id}/members/all/{user_id}', ['path:id', 'path:user_id']],
  ['post', '/api/v4/projects/{id}/members', ['path:id', 'body:user_id', 'body:access_level', 'body:expires_at']],
  ['put', '/api/v4/groups/{id}/members/{user_id}', ['path:id', 'path:user_id', 'body:access_level']],
  ['delete', '/api/v4/projects/{id}/members/{user_id}', ['path:id', 'path:user_id']],
  ['get', '/api/v4/projects/{id}/users', ['path:id', 'query:search', 'query:skip_users']],
  ['get', '/api/v4/users/{id}/memberships', ['path:id', 'query:type']],
  ['get', '/api/v4/users', ['query:username', 'query:created_before', 'query:custom_attributes']],
  ['post', '/api/v4/users', ['body:email', 'body:username', 'body:name', 'body:reset_password']],
  ['put', '/api/v4/users/{id}', ['path:id', 'body:projects_limit']],
  ['delete', '/api/v4/users/{id}', ['path:id', 'query:hard_delete']],
  ['post', '/api/v4/users/{id}/block', ['path:id']],
  ['get', '/api/v4/user', []],
  ['post', '/api/v4/user/keys', ['body:key', 'body:title', 'body:expires_at']],
  ['delete', '/api/v4/users/{id}/keys/{key_id}', ['path:id', 'path:key_id']],
  ['post', '/api/v4/user/gpg_keys/{key_id}/revoke', ['path:key_id']],
  ['get', '/api/v4/users/{id}/gpg_keys', ['path:id', 'query:per_page']],
  ['post', '/api/v4/users/{user_id}/impersonation_tokens', ['path:user_id', 'body:name', 'body:scopes']],
  ['get', '/api/v4/personal_access_tokens', ['query:user_id']],
  ['put', '/api/v4/application/settings', ['body:signup_enabled', 'body:restricted_visibility_levels']],
  ['get', '/api/v4/version', []],
];

describe('OpenAPI document: groups, members and users', () => {
  let gantry: TestCoordinator;
  let document: OpenApiDocument;

  before(async () => {
    gantry = await startTestCoordinator();
    const response = await gantry.api('GET', '/openapi.json');
    assert.equal(response.status, 200, response.text);
    document = response.body as OpenApiDocument;
  });
  after(() => gantry.close());

  for (const [method, path, parameters] of EXPECTED) {
    it(`${method.toUpperCase()} ${path} is listed with a summary, tags and ${parameters.join(', ') || 'no parameters'}`, () => {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is missing from the document`);
      assert.ok(operation.summary, 'a summary');
      assert.ok(operation.tags && operation.tags.length > 0, 'tags');
      const documented = new Set((operation.parameters ?? []).map((parameter) => `${parameter.in}:${parameter.name}`));
      const body = operation.requestBody?.content['application/json']?.schema.properties ?? {};
      for (const name of Object.keys(body)) documented.add(`body:${name}`);
      for (const parameter of parameters) assert.ok(documented.has(parameter), `${parameter} is documented (have: ${[...documented].join(', ')})`);
    });
  }

  it('marks required body parameters as required', () => {
    const required = document.paths['/api/v4/users']?.post?.requestBody?.content['application/json']?.schema.required ?? [];
    for (const name of ['email', 'name', 'username']) assert.ok(required.includes(name), `${name} is required`);
  });
});
