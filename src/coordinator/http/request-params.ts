import type { FastifyRequest } from 'fastify';
import { Params } from './params.ts';
import type { ParamMap } from './querystring.ts';

function asMap(value: unknown): ParamMap | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value) ? (value as ParamMap) : undefined;
}

/** Query, body and path parameters of a request as one typed view (path wins, then body). */
export function paramsOf(request: FastifyRequest): Params {
  return Params.merge(asMap(request.query), asMap(request.body), asMap(request.params));
}
