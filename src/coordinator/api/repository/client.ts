import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GitClient } from '../../../storage/git/types.ts';

/**
 * The requester of a repository read, for the heavy-git queue: its fairness key (the user,
 * or the address of an anonymous caller) and a signal that aborts when the client hangs up
 * before the answer was written, so its queued work leaves the queue and running git stops.
 */
export function repositoryClient(request: FastifyRequest, reply: FastifyReply): GitClient {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  const key = request.actor ? `user:${request.actor.id}` : `address:${request.ip}`;
  return { key, signal: controller.signal };
}
