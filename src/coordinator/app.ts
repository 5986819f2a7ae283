import { mkdirSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import path from 'node:path';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { GANTRY_VERSION } from '../shared/version.ts';
import { createRepositoryManager } from '../storage/git/index.ts';
import { openDatabase } from '../storage/sql/database.ts';
import { migrateToLatest } from '../storage/sql/migrate.ts';
import { createSqlStores } from '../storage/sql/stores/index.ts';
import { openJobQueueSignal } from '../storage/sql/queue-signal.ts';
import { registerApi } from './api/index.ts';
import { coordinatorUrl, recordMountPrefix } from './http/mount-path.ts';
import type { CoordinatorOptions } from './options.ts';
import { buildProjectsService, buildServices } from './wiring.ts';
import { buildCiServices, type CiServices } from './wiring-ci.ts';
import type { CoordinatorContext } from './context.ts';
import { Authenticator } from './http/auth.ts';
import { assignRouteBodyLimit, closeOnUnreadBodies, DEFAULT_BODY_LIMITS, guardAnonymousBodies, type BodyLimits } from './http/body-limits.ts';
import { handleJsonAsGitlabDoes } from './http/json-content-type.ts';
import { installErrorHandling } from './http/errors.ts';
import { registerGitHttp } from './http/git-http.ts';
import { nullByteInBody, nullByteInPathOrQuery } from './http/null-bytes.ts';
import { collectMultipartBodies } from './http/multipart.ts';
import { parseGitlabQuery } from './http/querystring.ts';
import { gitlabValidatorCompiler, mergeParameterSources } from './http/route-schemas.ts';
import { isRunnerProtocolRequest } from './http/runner-routes.ts';
import { requireSignInForWrites } from './http/sign-in-rule.ts';
import { closeWithin, installRequestLifetimes } from './http/request-lifetimes.ts';
import { RequestThrottles } from './http/throttle.ts';
import { WebDownloads } from './http/web-downloads.ts';
import { AccountsService } from './services/accounts/accounts.ts';
import { bootstrapRegistrationToken, bootstrapRoot } from './bootstrap.ts';
import { cleanUpRepositoryProtection } from './services/accounts/deploy-keys.ts';
import { CoordinatorEvents } from './services/events.ts';
import { ExpirySweeper } from './services/namespaces/expiry-sweeper.ts';
import { RunningJobTokens } from './services/ci/runners/job-token-verifier.ts';
import { Lookup } from './services/access/lookup.ts';
import { Permissions } from './services/access/permissions.ts';
import { ReadCache } from './services/access/read-cache.ts';
import { reconcileRepositories } from './repository-reconciliation.ts';
import { ProtectedBranchesService } from './services/repository/protected-branches.ts';
import { ProtectedTagsService } from './services/repository/protected-tags.ts';
import { SettingsService } from './services/instance/settings.ts';

export type { CoordinatorOptions };

const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;

export interface Coordinator {
  app: FastifyInstance;
  /** Every route mounted (method and URL pattern), for tests and tools that walk the API. */
  routes: ReadonlyArray<MountedRoute>;
  context: CoordinatorContext;
  /** root's token when this start created root, else undefined (it is never shown again). */
  createdRootToken: string | undefined;
  close(): Promise<void>;
}

/** A route mounted by the coordinator (method and URL pattern). */
export interface MountedRoute {
  method: string;
  url: string;
}

/** Storage, services and housekeeping of a running coordinator, before any HTTP is mounted. */
interface CoordinatorCore {
  context: CoordinatorContext;
  createdRootToken: string | undefined;
  limits: BodyLimits;
  authenticator: Authenticator;
  /** Called as each request arrives (OpenedDatabase.requestArrived). */
  requestArrived: (fromSocket: boolean) => void;
  /** The CI services, whose background work (task worker, schedules) runs from open to close. */
  ci: CiServices;
  jobRequestLongPollSeconds: number | undefined;
  shutdownGraceMs: number;
  close(): Promise<void>;
}

/** Builds a ready-to-listen coordinator: database migrated, root present, routes mounted. */
export async function createCoordinator(options: CoordinatorOptions = {}): Promise<Coordinator> {
  const core = await openCoordinator(options, options.logger ?? silentLogger());
  const app = Fastify({
    loggerInstance: core.context.logger as FastifyBaseLogger,
    bodyLimit: core.limits.api,
    routerOptions: { querystringParser: parseGitlabQuery, maxParamLength: 2048, ignoreTrailingSlash: true },
  });
  const routes: MountedRoute[] = [];
  try {
    await app.register(async (instance) => mountCoordinator(instance, core, { routes, parseQuery: false }));
  } catch (error) {
    await app.close();
    await core.close();
    throw error;
  }
  return { app, routes, context: core.context, createdRootToken: core.createdRootToken, close: () => closeWithin(app, core.shutdownGraceMs) };
}

export interface GantryPluginOptions extends CoordinatorOptions {
  /** Told root's token when this start created root (it is never shown again). */
  onRootTokenCreated?: (token: string) => void;
}

/**
 * The coordinator as a fastify plugin: a host registers it into its own server, under a
 * prefix if it likes (`app.register(gantryPlugin, { prefix: '/ci', externalUrl:
 * 'https://example.com/ci', ... })`). Its routes, hooks, body parsers and error handler stay
 * inside the plugin; storage closes with the host.
 */
export const gantryPlugin: FastifyPluginAsync<GantryPluginOptions> = async (instance, options) => {
  const core = await openCoordinator(options, options.logger ?? (instance.log as Logger));
  if (core.createdRootToken !== undefined) options.onRootTokenCreated?.(core.createdRootToken);
  try {
    await mountCoordinator(instance, core, { routes: [], parseQuery: true });
  } catch (error) {
    await core.close();
    throw error;
  }
};

async function openCoordinator(options: CoordinatorOptions, logger: Logger): Promise<CoordinatorCore> {
  const dataDir = path.resolve(options.dataDir ?? './data');
  const databaseUrl = options.databaseUrl ?? path.join(dataDir, 'gantry.sqlite3');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl) && databaseUrl !== ':memory:') mkdirSync(path.dirname(databaseUrl), { recursive: true });
  mkdirSync(dataDir, { recursive: true });

  const database = openDatabase(databaseUrl, (error) => logger.warn({ err: error }, 'an idle database connection was lost'), options.onStatement);
  await migrateToLatest(database.db, database.dialect);
  const stores = createSqlStores(database.db);
  const permissions = new Permissions(stores.accessFacts, stores.namespaces, stores.groupGroupLinks);
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
    jobTokens: options.jobTokenVerifier ?? new RunningJobTokens(stores.jobs),
    readCache: options.cacheReads === false ? new ReadCache(() => null) : new ReadCache(database.changeStamp, undefined, database, database.externalStamp),
    protectedBranches: new ProtectedBranchesService({ store: stores.protectedBranches, settings, permissions }),
    protectedTags: new ProtectedTagsService({ store: stores.protectedTags, permissions }),
    jobQueueSignal: openJobQueueSignal(databaseUrl, (error) => logger.warn({ err: error }, 'the job queue signal connection failed')),
  };
  const projects = buildProjectsService(context);
  await reconcileRepositories(context);
  context.events.onPush(async (push) => {
    await projects.recordPush(push.project_id);
    context.repositories.scheduleHousekeeping(push.project_id);
  });
  cleanUpRepositoryProtection({ events: context.events, branchRules: context.protectedBranches, releases: stores.releases, deployKeys: stores.deployKeys });
  const createdRootToken = await bootstrapRoot(context, options.rootToken);
  await bootstrapRegistrationToken(context);
  const expirySweeper = new ExpirySweeper(stores.members, stores.projectGroupLinks, stores.groupGroupLinks, logger);
  await expirySweeper.sweep();
  expirySweeper.start();
  const ci = buildCiServices(context, options.ci);
  ci.ciRuntime.start();

  return {
    context,
    createdRootToken,
    limits: {
      api: options.bodyLimit ?? DEFAULT_BODY_LIMITS.api,
      content: options.contentBodyLimit ?? DEFAULT_BODY_LIMITS.content,
      anonymous: options.anonymousBodyLimit ?? DEFAULT_BODY_LIMITS.anonymous,
      upload: options.uploadBodyLimit ?? DEFAULT_BODY_LIMITS.upload,
    },
    authenticator: new Authenticator(stores.users, stores.tokens, context.readCache),
    requestArrived: database.requestArrived,
    ci,
    jobRequestLongPollSeconds: options.jobRequestLongPollSeconds,
    shutdownGraceMs: options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    async close() {
      expirySweeper.stop();
      await ci.ciRuntime.stop();
      await context.jobQueueSignal.close();
      await context.repositories.close();
      await database.close();
    },
  };
}

/**
 * Mounts the API (/api/v4), git over HTTP and web downloads on an encapsulated instance:
 * parsers, hooks and the error handler apply to these routes only. The core closes with
 * the instance.
 */
async function mountCoordinator(instance: FastifyInstance, core: CoordinatorCore, mount: { routes: MountedRoute[]; parseQuery: boolean }): Promise<void> {
  const { context, limits, authenticator } = core;
  instance.addHook('onClose', () => core.close());
  installRequestLifetimes(instance, core.shutdownGraceMs);
  instance.addHook('onRequest', (request, _reply, done) => {
    core.requestArrived(request.raw.socket instanceof Socket);
    done();
  });
  instance.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) mount.routes.push({ method, url: route.url });
  });
  recordMountPrefix(instance);
  if (mount.parseQuery) {
    // A host's server parses query strings its own way; GitLab's `a[]=1&h[k]=v` needs ours.
    instance.addHook('onRequest', async (request) => {
      const queryAt = request.url.indexOf('?');
      request.query = parseGitlabQuery(queryAt < 0 ? '' : request.url.slice(queryAt + 1));
    });
  }
  installErrorHandling(instance);
  handleJsonAsGitlabDoes(instance);
  await instance.register(formbody, { parser: (body: string) => parseGitlabQuery(body) });
  await instance.register(multipart, { limits: { fileSize: limits.upload, fieldSize: limits.api, fields: 1000, files: 10 } });
  const uploadDirectory = path.join(context.config.dataDir, 'tmp', 'uploads');
  rmSync(uploadDirectory, { recursive: true, force: true }); // uploads a crash cut short
  collectMultipartBodies(instance, uploadDirectory);
  instance.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  await instance.register(rateLimit, { global: false });
  const throttles = new RequestThrottles(instance, () => context.settings.values(), () => context.settings.peek());
  const services = buildServices(context, core.ci, { jobRequestLongPollSeconds: core.jobRequestLongPollSeconds });

  instance.decorateRequest('actor', null);
  instance.decorateRequest('credentialUser', null);
  await instance.register(swagger, { openapi: { info: { title: 'Gantry API v4', description: "GitLab's API v4 as Gantry serves it", version: GANTRY_VERSION } } });
  await instance.register(
    async (api) => {
      api.setValidatorCompiler(gitlabValidatorCompiler);
      api.get('/openapi.json', { schema: { hide: true } }, async () => instance.swagger());
      api.addHook('onRoute', assignRouteBodyLimit(limits));
      // Every API request passes these hooks: callback style, with a promise only when there is
      // something to wait for (a token to look up, a throttle to count).
      // The caller is known before any body byte is read: a bad token answers 401 at once,
      // and throttles count the request whatever becomes of it.
      api.addHook('onRequest', (request, reply, done) => {
        const nullByte = nullByteInPathOrQuery(request);
        const signingIn = nullByte ? undefined : authenticator.authenticateBeforeBody(request);
        const throttled = !isRunnerProtocolRequest(request.method, coordinatorUrl(request));
        // Signed in (or anonymous) at once, a throttle that is off answers at once too: no promise.
        const refusing = signingIn === undefined && throttled ? throttles.refuseIfEnabled(request, reply, 'api') : false;
        if (signingIn === undefined && refusing === false) {
          done(nullByte as FastifyError | undefined);
          return;
        }
        const answer = async (): Promise<boolean> => {
          const failure = nullByte ?? (await signingIn?.then(() => undefined, (error: unknown) => error));
          if (throttled && (await (refusing || throttles.refuseIfEnabled(request, reply, 'api')))) return true;
          if (failure !== undefined) throw failure;
          return false;
        };
        answer().then((answered) => {
          if (!answered) done();
        }, (error: unknown) => done(error as FastifyError));
      });
      api.addHook('preParsing', guardAnonymousBodies(limits));
      // Sign-in completes before parameters are validated, as GitLab's `authenticate!` runs
      // before grape's validations (an anonymous write answers 401, not a parameter error),
      // and a route schema keeps only its declared parameters: `private_token` and `sudo` are not among them.
      api.addHook('preValidation', (request, _reply, done) => {
        mergeParameterSources(request);
        const nullByte = nullByteInBody(request);
        if (nullByte) {
          done(nullByte as FastifyError);
          return;
        }
        const signedIn = () => {
          requireSignInForWrites(request);
          // A read resolves each project, namespace chain and membership once (services/request-memo.ts).
          if (request.actor && (request.method === 'GET' || request.method === 'HEAD')) request.actor = context.permissions.memos.open(request.actor);
        };
        let signingIn: Promise<void> | undefined;
        try {
          signingIn = authenticator.authenticateFromBody(request);
          if (signingIn === undefined) signedIn();
        } catch (error) {
          done(error as FastifyError);
          return;
        }
        if (signingIn === undefined) done();
        else signingIn.then(signedIn).then(() => done(), (error: unknown) => done(error as FastifyError));
      });
      api.addHook('onResponse', (request, _reply, done) => {
        context.permissions.memos.close(request.actor);
        done();
      });
      api.addHook('onSend', closeOnUnreadBodies);
      await registerApi(api, services, { externalUrl: context.config.externalUrl });
    },
    { prefix: '/api/v4' },
  );
  await registerGitHttp(instance, context, {
    personalTokens: authenticator,
    branchRules: context.protectedBranches,
    tagRules: context.protectedTags,
    webDownloads: new WebDownloads(services, authenticator, throttles),
  });
}
