import type { FastifyRequest } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import { coordinatorUrl } from './mount-path.ts';
import { isRunnerProtocolRequest } from './runner-routes.ts';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Writes whose caller proves itself with a token parameter of the route, not a user's credential. */
const TOKEN_PARAMETER_WRITES = [/^\/api\/v4\/projects\/[^/]+\/(?:ref\/.+\/)?trigger\/pipeline$/];

/**
 * GitLab's `authenticate_non_get!`: every write of the user API needs a signed-in caller,
 * checked before its parameters (an anonymous `POST /projects` without a name answers 401,
 * not 400). Runner-protocol routes and trigger tokens authenticate in their handlers.
 */
export function requireSignInForWrites(request: FastifyRequest): void {
  if (request.actor !== null || READS.has(request.method)) return;
  const url = coordinatorUrl(request);
  if (isRunnerProtocolRequest(request.method, url)) return;
  const path = url.split('?', 1)[0]!.replace(/\/+$/, '');
  if (TOKEN_PARAMETER_WRITES.some((pattern) => pattern.test(path))) return;
  throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
}
