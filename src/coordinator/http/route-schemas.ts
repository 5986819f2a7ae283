import type { FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '#deps/typebox';
import { invalidParams, type GantryError } from '../../shared/errors.ts';
import { coerceParams, type ParamProblem } from './gitlab-params.ts';
import type { ParamMap } from './querystring.ts';

/**
 * Route schemas are read the way GitLab reads parameters (gitlab-params.ts) and refused
 * with grape's message: `400 {"error":"name is missing, visibility does not have a valid value"}`.
 */
export const gitlabValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema }) => (data: unknown) => {
  const result = coerceParams(schema, data);
  return result.ok ? { value: result.value } : { error: parametersRefused(result.problems) };
};

export function parametersRefused(problems: readonly ParamProblem[]): GantryError {
  return invalidParams(problems);
}

/**
 * GitLab takes any parameter from the query string or the body, whatever the method. A route
 * declares its parameters once — as `querystring` (reads) or `body` (writes) — and this hook
 * merges the other source in before validation (the body wins, as in grape): called first
 * thing in the API's preValidation hook.
 */
export function mergeParameterSources(request: FastifyRequest): void {
  const schema = request.routeOptions.schema;
  if (!schema) return;
  const query = asMap(request.query);
  const body = asMap(request.body);
  if (schema.body !== undefined) request.body = { ...query, ...body };
  else if (schema.querystring !== undefined && body) request.query = { ...query, ...body };
}

function asMap(value: unknown): ParamMap | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value) ? (value as ParamMap) : undefined;
}
