import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';

interface Operation {
  summary?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> };
}

type Document = { paths: Record<string, Record<string, Operation>> };

/** The repository area's routes: code, refs, releases, deploy keys. */
const REPOSITORY_ROUTE = /^\/api\/v4\/(deploy_keys$|projects\/:id\/(repository|protected_branches|protected_tags|releases|deploy_keys)(\/|$))/;

const openApiPath = (url: string) => url.replace(/^\/api\/v4/, '').replace(/:([a-z_]+)/g, '{$1}');

describe('OpenAPI document: the repository area', () => {
  let gantry: TestCoordinator;
  let document: Document;

  before(async () => {
    gantry = await startTestCoordinator();
    const response = await gantry.api('GET', '/openapi.json', { token: null });
    assert.equal(response.status, 200);
    document = response.body as Document;
  });
  after(() => gantry.close());

  it('lists every repository route with a summary, tags and its path parameters', () => {
    const routes = gantry.coordinator.routes.filter((route) => route.method !== 'HEAD' && REPOSITORY_ROUTE.test(route.url));
    assert.ok(routes.length >= 50, `only ${routes.length} repository routes`);
    const missing: string[] = [];
    for (const route of routes) {
      // The document lists paths relative to where the API is served (/api/v4 is its server prefix or part of the path).
      const paths = document.paths[openApiPath(route.url)] ?? document.paths[route.url.replace(/:([a-z_]+)/g, '{$1}')];
      const operation = paths?.[route.method.toLowerCase()];
      if (!operation) {
        missing.push(`${route.method} ${route.url}: absent`);
        continue;
      }
      if (!operation.summary || !operation.tags?.length) missing.push(`${route.method} ${route.url}: no summary or tags`);
      const pathParameters = [...route.url.matchAll(/:([a-z_]+)/g)].map((match) => match[1]);
      const documented = new Set((operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name));
      for (const name of pathParameters) if (!documented.has(name!)) missing.push(`${route.method} ${route.url}: path parameter ${name} undocumented`);
    }
    assert.deepEqual(missing, []);
  });

  it('documents query and body parameters', () => {
    const paths = Object.fromEntries(Object.entries(document.paths).map(([path, operations]) => [path.replace(/^\/api\/v4/, ''), operations]));
    const tree = paths['/projects/{id}/repository/tree']?.get;
    assert.deepEqual(
      (tree?.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name).sort(),
      ['page', 'path', 'per_page', 'recursive', 'ref'],
    );
    const create = paths['/projects/{id}/repository/commits']?.post;
    const body = create?.requestBody?.content['application/json']?.schema;
    assert.deepEqual(Object.keys(body?.properties ?? {}).sort(), ['actions', 'author_email', 'author_name', 'branch', 'commit_message', 'start_branch', 'stats']);
    assert.deepEqual([...(body?.required ?? [])].sort(), ['actions', 'branch', 'commit_message']);
  });

  it('keeps git over HTTP out of the document', () => {
    assert.ok(!Object.keys(document.paths).some((path) => path === '/*' || path.includes('.git')));
  });
});
