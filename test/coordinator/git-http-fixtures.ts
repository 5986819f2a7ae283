import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { CoordinatorOptions } from '../../src/coordinator/app.ts';
import { Authenticator } from '../../src/coordinator/http/auth.ts';
import { installErrorHandling } from '../../src/coordinator/http/errors.ts';
import { registerGitHttp } from '../../src/coordinator/http/git-http.ts';
import { installRequestLifetimes } from '../../src/coordinator/http/request-lifetimes.ts';
import type { BranchPushRules } from '../../src/coordinator/services/repository/git-http/push-policy.ts';
import type { PushEvent } from '../../src/coordinator/services/events.ts';
import type { ProjectRecord, Visibility } from '../../src/storage/types.ts';
import { startTestCoordinator, type TestCoordinator } from '../helpers/coordinator.ts';
import { makeProjectWithRepository } from './groups-fixtures.ts';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the git client in `cwd` and asserts it succeeded (the failure names the command and git's stderr); its trimmed stdout. */
export async function gitSucceeds(fixture: Pick<GitHttpFixture, 'git'>, cwd: string, args: string[]): Promise<string> {
  const result = await fixture.git(args, { cwd });
  assert.equal(result.code, 0, `git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

/** A coordinator on a real port, a scratch HOME for the git client, and a push-event log. */
export interface GitHttpFixture {
  gantry: TestCoordinator;
  /** http://127.0.0.1:<port> */
  baseUrl: string;
  /** Scratch directory for clones. */
  workDir: string;
  pushEvents: PushEvent[];
  /** Runs the git client (never prompts); never throws on a non-zero exit. */
  git(args: string[], options?: { cwd?: string; env?: Record<string, string> }): Promise<GitResult>;
  /** Clone URL of a project, with `user:secret` credentials when given. */
  url(fullPath: string, credentials?: { user: string; secret: string }): string;
  /** A project row plus its bare repository (with a README commit on main when `withReadme`). */
  project(namespaceId: number, projectPath: string, options?: { visibility?: Visibility; withReadme?: boolean }): Promise<ProjectRecord>;
  close(): Promise<void>;
}

export interface GitHttpFixtureOptions {
  coordinator?: Partial<CoordinatorOptions>;
  /**
   * Serve git from a separate app wired with these protected-branch rules instead of the
   * coordinator's own (tests the enforcement machinery against a stand-in).
   */
  branchRules?: BranchPushRules;
}

export async function startGitHttpFixture(options: GitHttpFixtureOptions = {}): Promise<GitHttpFixture> {
  const gantry = await startTestCoordinator({ extra: options.coordinator });
  const { context } = gantry.coordinator;
  let server: FastifyInstance = gantry.coordinator.app;
  if (options.branchRules) {
    server = Fastify();
    installErrorHandling(server);
    installRequestLifetimes(server, 1000);
    await registerGitHttp(server, context, {
      personalTokens: new Authenticator(context.stores.users, context.stores.tokens),
      branchRules: options.branchRules,
    });
  }
  await server.listen({ port: 0, host: '127.0.0.1' });
  const { port } = server.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const workDir = mkdtempSync(path.join(tmpdir(), 'gantry-git-client-'));
  const home = path.join(workDir, 'home');
  mkdirSync(home);
  const pushEvents: PushEvent[] = [];
  context.events.onPush((event) => {
    pushEvents.push(event);
  });
  const clientEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'author@example.com',
  };

  return {
    gantry,
    baseUrl,
    workDir,
    pushEvents,
    git(args, options = {}) {
      return new Promise((resolve) => {
        execFile('git', args, { cwd: options.cwd ?? workDir, env: { ...clientEnv, ...options.env }, timeout: 60_000 }, (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        });
      });
    },
    url(fullPath, credentials) {
      const auth = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.secret)}@` : '';
      return `http://${auth}127.0.0.1:${port}/${fullPath}.git`;
    },
    async project(namespaceId, projectPath, options = {}) {
      return makeProjectWithRepository(gantry, namespaceId, projectPath, options);
    },
    async close() {
      if (server !== gantry.coordinator.app) await server.close();
      await gantry.close();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
