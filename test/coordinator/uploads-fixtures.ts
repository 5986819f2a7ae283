import type { AddressInfo } from 'node:net';
import type { TestCoordinator } from '../helpers/coordinator.ts';

/** A 1×1 PNG (a real image: Chromium and python-gitlab's users see the same bytes). */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
/** A 1×1 GIF. */
export const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export interface FilePart {
  field: string;
  name: string;
  content: Buffer;
  type?: string;
}

/** The coordinator listening on loopback (multipart requests go through a real socket); answers its base URL. */
export async function listening(gantry: TestCoordinator): Promise<string> {
  const { app } = gantry.coordinator;
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** A multipart request to /api/v4 + path with the fields and files given. */
export async function sendMultipart(
  gantry: TestCoordinator,
  method: 'POST' | 'PUT',
  path: string,
  parts: { fields?: Record<string, string>; files?: FilePart[]; token?: string | null },
): Promise<{ status: number; json: Record<string, unknown> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts.fields ?? {})) form.append(name, value);
  for (const file of parts.files ?? []) form.append(file.field, new Blob([file.content], { type: file.type ?? 'application/octet-stream' }), file.name);
  const token = parts.token === undefined ? gantry.rootToken : parts.token;
  const headers: Record<string, string> = token === null ? {} : { 'private-token': token };
  const response = await fetch(`${await listening(gantry)}/api/v4${path}`, { method, body: form, headers, signal: AbortSignal.timeout(30_000) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** GETs a web path (an avatar_url or upload path, its host replaced by the listening address). */
export async function download(gantry: TestCoordinator, urlOrPath: string, token?: string): Promise<{ status: number; type: string | null; disposition: string | null; body: Buffer }> {
  const pathOnly = urlOrPath.replace(/^https?:\/\/[^/]+/, '');
  const headers: Record<string, string> = token === undefined ? {} : { 'private-token': token };
  const response = await fetch(`${await listening(gantry)}${pathOnly}`, { headers, signal: AbortSignal.timeout(30_000) });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    disposition: response.headers.get('content-disposition'),
    body: Buffer.from(await response.arrayBuffer()),
  };
}
