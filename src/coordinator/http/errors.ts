import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { GantryError, invalidParams, isGantryError, type ParamProblem } from '../../shared/errors.ts';
import { errorAnswer } from './error-responses.ts';

/**
 * Answers every failure with GitLab's status and body: domain errors through the table in
 * error-responses.ts (or the route's own `config.errorAnswers`), fastify's own refusals
 * after translating them to a code, anything else as GANTRY_E_INTERNAL. Each refusal is
 * logged with its code: client mistakes at info level, server failures at error level.
 */
export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler(() => {
    throw new GantryError('GANTRY_E_ROUTE_NOT_FOUND');
  });

  app.setErrorHandler((thrown: FastifyError, request, reply) => {
    const error = asGantryError(thrown);
    if (error === null) {
      // A client error of fastify or a plugin we have no code for: its own status, GitLab's shape.
      request.log.info({ err: thrown, status: thrown.statusCode }, 'request refused');
      void reply.code(thrown.statusCode ?? 400).send({ error: thrown.message });
      return;
    }
    const { status, body } = errorAnswer(error, request.routeOptions.config.errorAnswers);
    logRefusal(request, error, status);
    void reply.code(status).send(body);
  });
}

function logRefusal(request: FastifyRequest, error: GantryError, status: number): void {
  if (status >= 500) request.log.error({ err: error.cause ?? error, code: error.code }, error.message);
  else request.log.info({ code: error.code, status }, error.message);
}

/**
 * The domain error for what was thrown: itself, a translation of fastify's client errors
 * (schema validation, unparsable bodies, size and media-type refusals), GANTRY_E_INTERNAL
 * for everything unplanned, or null for a client error we have no code for.
 */
function asGantryError(thrown: FastifyError): GantryError | null {
  if (isGantryError(thrown)) return thrown;
  if (thrown.validation) return invalidParams(thrown.validation.map(validationProblem));
  const status = thrown.statusCode ?? 500;
  if (status === 413) return new GantryError('GANTRY_E_BODY_TOO_LARGE', thrown.message, {}, { cause: thrown });
  if (status === 415) return new GantryError('GANTRY_E_MEDIA_TYPE_UNSUPPORTED', thrown.message, {}, { cause: thrown });
  if (status === 400) return new GantryError('GANTRY_E_REQUEST_MALFORMED', thrown.message, {}, { cause: thrown });
  if (status >= 400 && status < 500) return null;
  return new GantryError('GANTRY_E_INTERNAL', 'unhandled error', {}, { cause: thrown });
}

/** A schema failure as grape words it: `name is missing`, `name is invalid`. */
function validationProblem(failure: NonNullable<FastifyError['validation']>[number]): ParamProblem {
  const missing = failure.keyword === 'required' && typeof failure.params.missingProperty === 'string' ? failure.params.missingProperty : undefined;
  const path = failure.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return { name: missing ?? (path || 'parameters'), problem: missing ? 'is missing' : 'is invalid' };
}
