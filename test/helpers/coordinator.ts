import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createCoordinator, type Coordinator, type CoordinatorOptions } from '../../src/coordinator/app.ts';
import { testDatabase } from './database.ts';

export const ROOT_TOKEN = 'root-test-token-0123456789';

export interface TestCoordinator {
  coordinator: Coordinator;
  rootToken: string;
  dataDir: string;
  /** Sends a request to /api/v4 + path with the given token (root's by default; null for none). */
  api(method: InjectOptions['method'], path: string, options?: ApiOptions): Promise<ApiResponse>;
  /** Creates a user through the API and returns it with a personal token. */
  createUser(username: string, extra?: Record<string, unknown>): Promise<{ id: number; username: string; token: string }>;
  close(): Promise<void>;
}

export interface ApiOptions {
  token?: string | null;
  body?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: unknown;
  text: string;
  /** The JSON body as a record (throws when it is not an object). */
  json: Record<string, unknown>;
  /** The JSON body as an array of records (throws when it is not an array). */
  list: Array<Record<string, unknown>>;
}

export async function startTestCoordinator(options: { externalUrl?: string; extra?: Partial<CoordinatorOptions> } = {}): Promise<TestCoordinator> {
  const database = await testDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gantry-test-'));
  const coordinator = await createCoordinator({
    dataDir,
    databaseUrl: database.url,
    rootToken: ROOT_TOKEN,
    externalUrl: options.externalUrl ?? 'http://gantry.test',
    ...options.extra,
  });
  await coordinator.app.ready();

  const api: TestCoordinator['api'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const token = opts.token === undefined ? ROOT_TOKEN : opts.token;
    if (token !== null) headers['private-token'] = token;
    let payload: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(opts.form).toString();
    } else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(opts.body);
    }
    const response = await coordinator.app.inject({ method, url: `/api/v4${url}`, headers, payload });
    let body: unknown;
    try {
      body = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      body = undefined;
    }
    return {
      status: response.statusCode,
      headers: response.headers,
      body,
      text: response.body,
      get json() {
        if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error(`not a JSON object: ${response.body}`);
        return body as Record<string, unknown>;
      },
      get list() {
        if (!Array.isArray(body)) throw new Error(`not a JSON array: ${response.body}`);
        return body as Array<Record<string, unknown>>;
      },
    };
  };

  return {
    coordinator,
    rootToken: ROOT_TOKEN,
    dataDir,
    api,
    async createUser(username, extra = {}) {
      const created = await api('POST', '/users', {
        body: { username, name: `User ${username}`, email: `${username}@example.com`, password: 'secret-password-1', skip_confirmation: true, ...extra },
      });
      if (created.status !== 201) throw new Error(`creating ${username}: ${created.status} ${created.text}`);
      const id = created.json.id as number;
      const token = await coordinator.context.accounts.issueToken(id, 'test');
      return { id, username, token };
    },
    async close() {
      await coordinator.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
