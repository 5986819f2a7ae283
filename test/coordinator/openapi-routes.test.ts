import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ROOT_TOKEN, startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { apiRoutes } from './route-walk.ts';

interface OpenApiParameter {
  name: string;
  in: string;
}

interface OpenApiOperation {
  summary?: string;
  tags?: string[];
  parameters?: OpenApiParameter[];
  requestBody?: unknown;
}

type OpenApiDocument = { openapi: string; paths: Record<string, Record<string, OpenApiOperation>> };

/** `/api/v4/projects/:id/repository/files/:file_path` as OpenAPI writes it: `/api/v4/projects/{id}/...` (a trailing wildcard `*`: `{*}`). */
const openApiPath = (url: string): string => url.replace(/:([A-Za-z_]+)/g, '{$1}').replace(/\*$/, '{*}');
const pathNames = (url: string): string[] => [...url.matchAll(/:([A-Za-z_]+)/g)].map((match) => match[1]!);
/** The API's own document, served but not described by itself. */
const UNDESCRIBED = new Set(['GET /api/v4/openapi.json']);

describe('OpenAPI document', () => {
  let gantry: TestCoordinator;
  let document: OpenApiDocument;

  before(async () => {
    gantry = await startTestCoordinator();
    const response = await gantry.coordinator.app.inject({ method: 'GET', url: '/api/v4/openapi.json', headers: { 'private-token': ROOT_TOKEN } });
    assert.equal(response.statusCode, 200);
    document = response.json<OpenApiDocument>();
  });
  after(() => gantry.close());

  it('is an OpenAPI 3 document', () => {
    assert.match(document.openapi, /^3\./);
  });

  it('lists every API route with a summary, a tag and its path parameters', () => {
    const routes = apiRoutes(gantry).filter((route) => !UNDESCRIBED.has(`${route.method} ${route.url}`));
    assert.ok(routes.length > 100, `only ${routes.length} routes`);
    const problems: string[] = [];
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      if (!operation) {
        problems.push(`${route.method} ${route.url}: missing`);
        continue;
      }
      if (!operation.summary) problems.push(`${route.method} ${route.url}: no summary`);
      if (!operation.tags?.length) problems.push(`${route.method} ${route.url}: no tag`);
      const declared = new Set((operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name));
      for (const name of pathNames(route.url)) if (!declared.has(name)) problems.push(`${route.method} ${route.url}: path parameter ${name} undeclared`);
    }
    assert.deepEqual(problems, []);
  });

  it('documents the parameters a route reads: GET /projects has search and visibility, POST /projects a body with name', () => {
    const list = document.paths['/api/v4/projects']?.get;
    const names = new Set((list?.parameters ?? []).map((parameter) => parameter.name));
    for (const name of ['search', 'visibility', 'page', 'per_page']) assert.ok(names.has(name), `GET /projects lacks ${name}`);
    const create = document.paths['/api/v4/projects']?.post;
    assert.match(JSON.stringify(create?.requestBody ?? {}), /"name"/);
  });

  it('leaves git over HTTP out', () => {
    assert.deepEqual(Object.keys(document.paths).filter((key) => !key.startsWith('/api/v4/')), []);
  });
});
