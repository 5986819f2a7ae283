import type { FastifyReply } from 'fastify';
import { GantryError } from '../../shared/errors.ts';

/**
 * A signal aborted when the client goes away before its answer was sent, so long work
 * (a commit of many actions) stops with it instead of running on for nobody.
 */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort(new GantryError('GANTRY_E_CLIENT_GONE'));
  });
  return controller.signal;
}
