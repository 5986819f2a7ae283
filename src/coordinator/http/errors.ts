import type { FastifyError, FastifyInstance } from 'fastify';
import { isGantryError } from '../../shared/errors.ts';

/** Maps every failure to GitLab's status codes and bodies; unknown routes answer 404 Not Found. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => {
    void reply.code(404).send({ error: '404 Not Found' });
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (isGantryError(error)) {
      void reply.code(error.status).send(error.body);
      return;
    }
    if (error.validation) {
      void reply.code(400).send({ error: error.message });
      return;
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      void reply.code(status).send(clientErrorBody(status, error.message));
      return;
    }
    request.log.error({ err: error }, 'unhandled error');
    void reply.code(500).send({ message: '500 Internal Server Error' });
  });
}

/** GitLab's bodies for refusals raised by fastify and its plugins (413 as its `file_too_large!`). */
function clientErrorBody(status: number, message: string): { message: string } | { error: string } {
  if (status === 413) return { message: '413 Request Entity Too Large' };
  if (status === 415) return { message: '415 Unsupported Media Type' };
  return { error: message };
}
