import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { createRepositoryManager, type RepositoryManagerOptions } from '../storage/git/index.ts';
import { openDatabase } from '../storage/sql/database.ts';
import { migrateToLatest } from '../storage/sql/migrate.ts';
import { createSqlStores } from '../storage/sql/stores/index.ts';
import { registerApi } from './api/index.ts';
import type { CoordinatorContext } from './context.ts';
import { Authenticator } from './http/auth.ts';
import { assignRouteBodyLimit, closeOnUnreadBodies, DEFAULT_BODY_LIMITS, guardAnonymousBodies, type BodyLimits } from './http/body-limits.ts';
import { handleJsonAsGitlabDoes } from './http/json-content-type.ts';
import { installErrorHandling } from './http/errors.ts';
import { registerGitHttp } from './http/git-http.ts';
import { collectMultipartBodies } from './http/multipart.ts';
import { parseGitlabQuery } from './http/querystring.ts';
import { isRunnerProtocolRequest } from './http/runner-routes.ts';
import { RequestThrottles } from './http/throttle.ts';
import { WebDownloads } from './http/web-downloads.ts';
import { AccountsService } from './services/accounts.ts';
import { bootstrapRoot } from './services/bootstrap.ts';
import { cleanUpRepositoryProtection } from './services/deploy-keys.ts';
import { CoordinatorEvents } from './services/events.ts';
import { ExpirySweeper } from './services/expiry-sweeper.ts';
import { noJobTokens, type JobTokenVerifier } from './services/git-http/job-tokens.ts';
import { Lookup } from './services/lookup.ts';
import { Permissions } from './services/permissions.ts';
import { ProjectsService } from './services/projects.ts';
import { ReadCache } from './services/read-cache.ts';
import { reconcileRepositories } from './services/repository-reconciliation.ts';
import { ProtectedBranchesService } from './services/protected-branches.ts';
import { ProtectedTagsService } from './services/protected-tags.ts';
import { SettingsService } from './services/settings.ts';

export interface CoordinatorOptions {
  /** Data directory: SQLite file, repositories, artifacts. Default ./data. */
  dataDir?: string;
  /** `postgres://...`, a SQLite file path, or `:memory:`. Default: `<dataDir>/gantry.sqlite3`. */
  databaseUrl?: string;
  /** Base URL clients reach us at. Default http://localhost:8080. */
  externalUrl?: string;
  logger?: Logger;
  /** Token to give root on first start (GANTRY_ROOT_TOKEN); random when absent. */
  rootToken?: string;
  /** Largest JSON, urlencoded or text body of the API, in bytes (413 past it). Default 1 MiB. */
  bodyLimit?: number;
  /** Largest body of commit creation and repository file writes (contents travel in JSON). Default 64 MiB. */
  contentBodyLimit?: number;
  /** Largest body read from a caller with no credential in its headers or query (401 past it). Default 64 KiB. */
  anonymousBodyLimit?: number;
  /** Largest file of a multipart upload. Default 1 GiB. */
  uploadBodyLimit?: number;
  /** Checks CI job tokens for git over HTTP (`gitlab-ci-token`); by default none is valid. */
  jobTokenVerifier?: JobTokenVerifier;
  /** Keep answers of frequent reads until the database changes (SQLite only). Default true. */
  cacheReads?: boolean;
  /** Heavy git work: queue slots and bounds, the blame size limit (README: Git storage). */
  git?: Pick<RepositoryManagerOptions, 'work' | 'blameMaxBytes'>;
}

export interface Coordinator {
  app: FastifyInstance;
  /** Every route mounted (method and URL pattern), for tests and tools that walk the API. */
  routes: ReadonlyArray<{ method: string; url: string }>;
  context: CoordinatorContext;
  /** root's token when this start created root, else undefined (it is never shown again). */
  createdRootToken: string | undefined;
  close(): Promise<void>;
}

/** Builds a ready-to-listen coordinator: database migrated, root present, routes mounted. */
export async function createCoordinator(options: CoordinatorOptions = {}): Promise<Coordinator> {
  const dataDir = path.resolve(options.dataDir ?? './data');
  const databaseUrl = options.databaseUrl ?? path.join(dataDir, 'gantry.sqlite3');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl) && databaseUrl !== ':memory:') mkdirSync(path.dirname(databaseUrl), { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const logger = options.logger ?? silentLogger();

  const database = openDatabase(databaseUrl, (error) => logger.warn({ err: error }, 'an idle database connection was lost'));
  await migrateToLatest(database.db, database.dialect);
  const stores = createSqlStores(database.db);
  const permissions = new Permissions(database.db, stores.namespaces, stores.members, stores.groupGroupLinks);
  const settings = new SettingsService(stores.settings);
  const accounts = new AccountsService(stores.users, stores.namespaces, stores.tokens);
  const context: CoordinatorContext = {
    config: { externalUrl: (options.externalUrl ?? 'http://localhost:8080').replace(/\/+$/, ''), dataDir },
    logger,
    db: database.db,
    dialect: database.dialect,
    stores,
    permissions,
    settings,
    accounts,
    lookup: new Lookup(stores.projects, stores.namespaces, stores.users, permissions),
    repositories: createRepositoryManager({ ...options.git, root: path.join(dataDir, 'repositories'), logger }),
    events: new CoordinatorEvents((error) => logger.error({ err: error }, 'event listener failed')),
    jobTokens: options.jobTokenVerifier ?? noJobTokens,
    readCache: new ReadCache(options.cacheReads === false ? () => null : database.changeStamp),
    protectedBranches: new ProtectedBranchesService(stores.protectedBranches, settings, permissions),
    protectedTags: new ProtectedTagsService(stores.protectedTags, permissions),
  };
  const projects = new ProjectsService(context);
  await reconcileRepositories(context);
  context.events.onPush(async (push) => {
    await projects.recordPush(push.project_id);
    context.repositories.scheduleHousekeeping(push.project_id);
  });
  cleanUpRepositoryProtection(context);
  const createdRootToken = await bootstrapRoot(context, options.rootToken);
  const expirySweeper = new ExpirySweeper(stores.members, stores.projectGroupLinks, stores.groupGroupLinks, logger);
  await expirySweeper.sweep();
  expirySweeper.start();

  const limits: BodyLimits = {
    api: options.bodyLimit ?? DEFAULT_BODY_LIMITS.api,
    content: options.contentBodyLimit ?? DEFAULT_BODY_LIMITS.content,
    anonymous: options.anonymousBodyLimit ?? DEFAULT_BODY_LIMITS.anonymous,
    upload: options.uploadBodyLimit ?? DEFAULT_BODY_LIMITS.upload,
  };
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: limits.api,
    routerOptions: { querystringParser: parseGitlabQuery, maxParamLength: 2048, ignoreTrailingSlash: true },
  });
  const routes: Array<{ method: string; url: string }> = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  installErrorHandling(app);
  handleJsonAsGitlabDoes(app);
  await app.register(formbody, { parser: (body: string) => parseGitlabQuery(body) });
  await app.register(multipart, { limits: { fileSize: limits.upload, fieldSize: limits.api, fields: 1000, files: 10 } });
  const uploadDirectory = path.join(dataDir, 'tmp', 'uploads');
  rmSync(uploadDirectory, { recursive: true, force: true }); // uploads a crash cut short
  collectMultipartBodies(app, uploadDirectory);
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  await app.register(rateLimit, { global: false });
  const throttles = new RequestThrottles(app, () => settings.values());

  const authenticator = new Authenticator(stores.users, stores.tokens, context.readCache);
  app.decorateRequest('actor', null);
  app.decorateRequest('credentialUser', null);
  await app.register(
    async (api) => {
      api.addHook('onRoute', assignRouteBodyLimit(limits));
      // The caller is known before any body byte is read: a bad token answers 401 at once,
      // and throttles count the request whatever becomes of it.
      api.addHook('onRequest', async (request, reply) => {
        const failure = await authenticator.authenticateBeforeBody(request).then(
          () => undefined,
          (error: unknown) => error,
        );
        if (!isRunnerProtocolRequest(request.method, request.url) && (await throttles.refuse(request, reply, 'api'))) return reply;
        if (failure !== undefined) throw failure;
        return undefined;
      });
      api.addHook('preParsing', guardAnonymousBodies(limits));
      api.addHook('preHandler', (request) => authenticator.authenticateFromBody(request));
      api.addHook('onSend', closeOnUnreadBodies);
      await registerApi(api, context);
    },
    { prefix: '/api/v4' },
  );
  await registerGitHttp(app, context, {
    personalTokens: authenticator,
    branchRules: context.protectedBranches,
    tagRules: context.protectedTags,
    webDownloads: new WebDownloads(context, authenticator, throttles),
  });

  return {
    app,
    routes,
    context,
    createdRootToken,
    async close() {
      expirySweeper.stop();
      await app.close();
      await context.repositories.close();
      await database.close();
    },
  };
}
