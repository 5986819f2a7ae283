import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The prefix a host mounted the coordinator under (`''` when it runs on its own). */
    coordinatorPrefix: string;
  }
}

/**
 * Records the mount prefix on every request of this (encapsulated) instance: the value of
 * the instance's own request decorator, so no hook runs per request.
 */
export function recordMountPrefix(instance: FastifyInstance): void {
  instance.decorateRequest('coordinatorPrefix', instance.prefix.replace(/\/+$/, ''));
}

/**
 * The request's URL inside the coordinator: `/api/v4/projects?page=2` whether the coordinator
 * runs on its own or a host mounted it under `/ci` (then `request.url` is `/ci/api/v4/...`).
 */
export function coordinatorUrl(request: FastifyRequest): string {
  const prefix = request.coordinatorPrefix ?? '';
  return prefix !== '' && request.url.startsWith(prefix) ? request.url.slice(prefix.length) || '/' : request.url;
}
