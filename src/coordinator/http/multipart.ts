import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../shared/errors.ts';
import { assignParam, type ParamMap } from './querystring.ts';

type MultipartPart = { type: 'field'; fieldname: string; value: unknown } | { type: 'file'; fieldname: string; filename: string; toBuffer(): Promise<Buffer> };

/**
 * Multipart bodies become parameters like form fields; files become `{ filename, content }`.
 * A malformed body (no boundary, broken part headers) is the caller's mistake: 400; the
 * plugin's own limits keep their 413.
 */
export function collectMultipartBodies(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    try {
      request.body = await collectMultipartFields(request.parts());
    } catch (error) {
      if (hasClientStatus(error)) throw error;
      throw badRequest(`multipart body is malformed (${error instanceof Error ? error.message : String(error)})`);
    }
  });
}

function hasClientStatus(error: unknown): boolean {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

async function collectMultipartFields(parts: AsyncIterable<MultipartPart>): Promise<ParamMap> {
  const out: ParamMap = Object.create(null) as ParamMap;
  for await (const part of parts) {
    if (part.type === 'file') {
      const content = await part.toBuffer();
      out[part.fieldname] = { filename: part.filename, content: content.toString('base64') };
    } else {
      assignParam(out, part.fieldname, typeof part.value === 'string' ? part.value : String(part.value));
    }
  }
  return out;
}
