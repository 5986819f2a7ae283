import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GitClient } from '../../../storage/git/types.ts';
import { requestSignal } from '../../http/request-lifetimes.ts';

/**
 * The requester of a repository read, for the heavy-git queue: its fairness key (the user,
 * or the address of an anonymous caller) and the request's signal, which aborts when the
 * client hangs up before the answer was written or the coordinator closes, so its queued
 * work leaves the queue and running git stops.
 */
export function repositoryClient(request: FastifyRequest, reply: FastifyReply): GitClient {
  const key = request.actor ? `user:${request.actor.id}` : `address:${request.ip}`;
  return { key, signal: requestSignal(reply) };
}
