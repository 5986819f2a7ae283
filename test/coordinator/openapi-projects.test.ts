import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: Array<{ in: string; name: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
}

/** Each route of the projects area, with parameters its operation must document (path, query or body). */
const ROUTES: Array<[method: string, path: string, parameters: string[]]> = [
  ['get', '/api/v4/projects', ['search', 'visibility', 'order_by', 'min_access_level', 'custom_attributes', 'page', 'per_page']],
  ['get', '/api/v4/users/{user_id}/projects', ['user_id', 'owned', 'page']],
  ['get', '/api/v4/projects/{id}', ['id', 'statistics', 'with_custom_attributes']],
  ['post', '/api/v4/projects', ['name', 'path', 'namespace_id', 'visibility', 'topics', 'initialize_with_readme']],
  ['post', '/api/v4/projects/user/{user_id}', ['user_id', 'name', 'path']],
  ['put', '/api/v4/projects/{id}', ['id', 'name', 'default_branch', 'issues_access_level']],
  ['delete', '/api/v4/projects/{id}', ['id']],
  ['post', '/api/v4/projects/{id}/fork', ['id', 'namespace_id', 'namespace_path', 'visibility']],
  ['post', '/api/v4/projects/{id}/star', ['id']],
  ['post', '/api/v4/projects/{id}/unstar', ['id']],
  ['post', '/api/v4/projects/{id}/archive', ['id']],
  ['post', '/api/v4/projects/{id}/unarchive', ['id']],
  ['put', '/api/v4/projects/{id}/transfer', ['id', 'namespace']],
  ['post', '/api/v4/projects/{id}/share', ['id', 'group_id', 'group_access', 'expires_at']],
  ['delete', '/api/v4/projects/{id}/share/{group_id}', ['id', 'group_id']],
  ...['users', 'groups', 'projects'].flatMap((subject): Array<[string, string, string[]]> => [
    ['get', `/api/v4/${subject}/{id}/custom_attributes`, ['id', 'page']],
    ['get', `/api/v4/${subject}/{id}/custom_attributes/{key}`, ['id', 'key']],
    ['put', `/api/v4/${subject}/{id}/custom_attributes/{key}`, ['id', 'key', 'value']],
    ['delete', `/api/v4/${subject}/{id}/custom_attributes/{key}`, ['id', 'key']],
  ]),
];

function documentedParameters(operation: Operation): Set<string> {
  const names = new Set((operation.parameters ?? []).map((parameter) => parameter.name));
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    for (const name of Object.keys(media.schema.properties ?? {})) names.add(name);
  }
  return names;
}

describe('OpenAPI document: the projects area', () => {
  let gantry: TestCoordinator;
  let paths: Record<string, Record<string, Operation>>;

  before(async () => {
    gantry = await startTestCoordinator();
    const response = await gantry.api('GET', '/openapi.json');
    assert.equal(response.status, 200);
    paths = (response.json as { paths: Record<string, Record<string, Operation>> }).paths;
  });
  after(() => gantry.close());

  it('lists every route with a summary, a tag and its parameters', () => {
    for (const [method, path, parameters] of ROUTES) {
      const operation = paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} is missing`);
      assert.ok(operation.summary, `${method.toUpperCase()} ${path} has no summary`);
      assert.ok((operation.tags ?? []).length > 0, `${method.toUpperCase()} ${path} has no tag`);
      const documented = documentedParameters(operation);
      for (const name of parameters) assert.ok(documented.has(name), `${method.toUpperCase()} ${path} does not document ${name}`);
    }
  });

  it('marks required parameters as required', () => {
    const share = paths['/api/v4/projects/{id}/share']?.post;
    assert.deepEqual(share?.requestBody?.content['application/json']?.schema.required?.sort(), ['group_access', 'group_id']);
    const transfer = paths['/api/v4/projects/{id}/transfer']?.put;
    assert.deepEqual(transfer?.requestBody?.content['application/json']?.schema.required, ['namespace']);
    const project = paths['/api/v4/projects/{id}']?.get;
    assert.deepEqual(project?.parameters?.filter((parameter) => parameter.required).map((parameter) => parameter.name), ['id']);
  });
});
