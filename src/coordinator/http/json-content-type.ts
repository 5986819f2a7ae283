import type { FastifyInstance } from 'fastify';

/**
 * JSON in and out the way GitLab's clients expect it:
 * - an empty body sent as `application/json` (python-gitlab does so on every DELETE) is no
 *   body at all rather than a 400;
 * - JSON answers carry plain `application/json`: some clients (python-gitlab again) compare
 *   the header verbatim, and fastify's `; charset=utf-8` would make them treat every answer
 *   as raw bytes. JSON is UTF-8 by definition, so nothing is lost.
 */
export function handleJsonAsGitlabDoes(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, done);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (reply.getHeader('content-type') === 'application/json; charset=utf-8') reply.header('content-type', 'application/json');
    done(null, payload);
  });
}
