import type { FastifyReply } from 'fastify';
import { GantryError } from '../../shared/errors.ts';

/**
 * A signal aborted when the client goes away before its answer was sent, so long work
 * (a commit of many actions) stops with it instead of running on for nobody.
 */
export function abortOnDisconnect(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const gone = () => {
    if (!reply.raw.writableFinished) controller.abort(new GantryError('GANTRY_E_CLIENT_GONE'));
  };
  // Asked for after the client already hung up, the signal starts aborted.
  if (reply.raw.socket?.destroyed === true) gone();
  else reply.raw.once('close', gone);
  return controller.signal;
}
