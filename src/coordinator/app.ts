import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import path from 'node:path';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { silentLogger, type Logger } from '../shared/logger.ts';
import { GANTRY_VERSION } from '../shared/version.ts';
import { openDatabase } from '../storage/sql/database.ts';
import { openDatabaseNotifications } from '../storage/sql/notifications.ts';
import { claimSqliteDatabase } from '../storage/sql/process-locks.ts';
import { SqlMonitoringStore } from '../storage/sql/stores/monitoring.ts';
import { coordinatorUrl, recordMountPrefix } from './http/mount-path.ts';
import { DEFAULT_SHUTDOWN_GRACE_MS, type CoordinatorOptions, type CoordinatorRoutes } from './options.ts';
import { buildProjectsService, buildServices } from './wiring.ts';
import { buildCiServices, type CiServices } from './wiring-ci.ts';
import { buildMonitoring, type Monitoring } from './wiring-monitoring.ts';
import { DEFAULT_MONITORING_IP_WHITELIST, MonitoringAllowList } from './http/monitoring/allow-list.ts';
import { registerMonitoringRoutes } from './http/monitoring/routes.ts';
import type { CoordinatorContext } from './context.ts';
import { Authenticator } from './http/auth.ts';
import { JobTokenSignIn } from './services/ci/runners/job-token-sign-in.ts';
import { assignRouteBodyLimit, closeOnUnreadBodies, DEFAULT_BODY_LIMITS, guardAnonymousBodies, type BodyLimits } from './http/body-limits.ts';
import { handleJsonAsGitlabDoes } from './http/json-content-type.ts';
import { allowCrossOriginRequests } from './http/cors.ts';
import { installErrorHandling } from './http/errors.ts';
import { registerGitHttp } from './http/git-http.ts';
import { registerOidcDiscovery } from './http/oidc-discovery.ts';
import { nullByteInBody, nullByteInPathOrQuery } from './http/null-bytes.ts';
import { collectMultipartBodies } from './http/multipart.ts';
import { parseGitlabQuery } from './http/querystring.ts';
import { gitlabValidatorCompiler, mergeParameterSources } from './http/route-schemas.ts';
import { isRunnerProtocolRequest } from './http/runner-routes.ts';
import { requireSignInForWrites } from './http/sign-in-rule.ts';
import { closeWithin, installRequestLifetimes } from './http/request-lifetimes.ts';
import { RequestThrottles, sharedThrottleCounters } from './http/throttle.ts';
import { WebDownloads } from './http/web-downloads.ts';
import { cleanUpRepositoryProtection } from './services/accounts/deploy-keys.ts';
import { ExpirySweeper } from './services/namespaces/expiry-sweeper.ts';
import { uploadsDirectory } from './repository-reconciliation.ts';
import { startUnderLock } from './startup.ts';
import { closingSteps } from './closing-steps.ts';
import { registerWebPages } from './web/index.ts';
import { InstanceUpkeep } from './instance-upkeep.ts';
import { runInRequestScope } from './request-scope.ts';

export type { CoordinatorOptions };

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
  packageFileLimit: number | undefined;
  shutdownGraceMs: number;
  /** Health checks, metrics and the allow-list of their endpoints. */
  monitoring: Monitoring;
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
    await app.register(async (instance) => mountCoordinator(instance, core, { routes, parseQuery: false, api: options.routes ?? 'all' }));
  } catch (error) {
    await app.close();
    await core.close();
    throw error;
  }
  const coordinator: Coordinator = { app, routes, context: core.context, createdRootToken: core.createdRootToken, close: () => closeWithin(app, core.shutdownGraceMs) };
  ciServicesByCoordinator.set(coordinator, core.ci);
  return coordinator;
}

const ciServicesByCoordinator = new WeakMap<Coordinator, CiServices>();

/**
 * The CI services of a coordinator made by createCoordinator, for `runner exec` (in the same
 * process): pipeline creation with a source and configuration of its own. Not part of the
 * package's entry.
 */
export function ciServicesOf(coordinator: Coordinator): CiServices {
  const services = ciServicesByCoordinator.get(coordinator);
  if (!services) throw new Error('not a coordinator made by createCoordinator');
  return services;
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
    await mountCoordinator(instance, core, { routes: [], parseQuery: true, api: 'all' });
  } catch (error) {
    await core.close();
    throw error;
  }
};

async function openCoordinator(options: CoordinatorOptions, logger: Logger): Promise<CoordinatorCore> {
  const monitoringAllowList = MonitoringAllowList.parse(options.monitoringIpWhitelist ?? DEFAULT_MONITORING_IP_WHITELIST);
  const dataDir = path.resolve(options.dataDir ?? './data');
  const databaseUrl = options.databaseUrl ?? path.join(dataDir, 'gantry.sqlite3');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl) && databaseUrl !== ':memory:') mkdirSync(path.dirname(databaseUrl), { recursive: true });
  mkdirSync(dataDir, { recursive: true });

  const claim = claimSqliteDatabase(databaseUrl);
  const database = openDatabase(databaseUrl, (error) => logger.warn({ err: error }, 'an idle database connection was lost'), options.onStatement, options.sqliteImage);
  const notifications = openDatabaseNotifications(databaseUrl, (error) => logger.warn({ err: error }, 'the database notification connection failed'));
  const started = await startUnderLock(options, logger, { dataDir, databaseUrl, database, notifications }).catch(async (error: unknown) => {
    await notifications.close();
    await database.close();
    await claim.release();
    throw error;
  });
  const { context, createdRootToken } = started;
  const { stores } = context;
  const projects = buildProjectsService(context);
  context.events.onPush(async (push) => {
    await projects.recordPush(push.project_id);
    context.repositories.scheduleHousekeeping(push.project_id);
  });
  cleanUpRepositoryProtection({ events: context.events, branchRules: context.protectedBranches, releases: stores.releases, deployKeys: stores.deployKeys });
  context.instance.start();
  const upkeep = new InstanceUpkeep(context, options.instances?.upkeepIntervalMs);
  if (database.dialect === 'postgres') upkeep.start();
  const expirySweeper = new ExpirySweeper(stores.members, stores.projectGroupLinks, stores.groupGroupLinks, logger);
  await expirySweeper.sweep();
  expirySweeper.start();
  const monitoring = buildMonitoring(context, new SqlMonitoringStore(database.db), monitoringAllowList);
  // The webhook delivery thread opens the same database again.
  const hooks = { ...options.ci?.hooks, storage: { databaseUrl, secretKeys: options.secretKeys, git: options.git } };
  const ci = buildCiServices(context, { ...options.ci, mail: options.mail ?? options.ci?.mail, hooks }, monitoring.countBlobs);
  monitoring.attachCi(ci);
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
    authenticator: new Authenticator(stores.users, stores.tokens, context.readCache, new JobTokenSignIn({ verifier: context.jobTokens, users: stores.users, lookup: context.lookup, permissions: context.permissions })),
    requestArrived: database.requestArrived,
    ci,
    jobRequestLongPollSeconds: options.jobRequestLongPollSeconds,
    packageFileLimit: options.packageFileLimit,
    shutdownGraceMs: options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS,
    monitoring,
    async close() {
      const step = closingSteps(logger);
      expirySweeper.stop();
      await step('instance upkeep', () => upkeep.stop());
      await ci.ciRuntime.stop(step);
      await step('the instance record', () => context.instance.stop());
      await step('database notifications', () => notifications.close());
      await step('repositories', () => context.repositories.close());
      await step('uploads', () => rm(uploadsDirectory(context.config.dataDir, context.instance.id), { recursive: true, force: true }));
      await step('the database', () => database.close());
      await step('the database claim', () => claim.release());
    },
  };
}

/**
 * Mounts the API (/api/v4), git over HTTP and web downloads on an encapsulated instance:
 * parsers, hooks and the error handler apply to these routes only. The core closes with
 * the instance.
 */
async function mountCoordinator(instance: FastifyInstance, core: CoordinatorCore, mount: { routes: MountedRoute[]; parseQuery: boolean; api: CoordinatorRoutes }): Promise<void> {
  const { context, limits, authenticator } = core;
  instance.addHook('onClose', () => core.close());
  installRequestLifetimes(instance, core.shutdownGraceMs);
  instance.addHook('onRequest', (request, reply, done) => {
    core.requestArrived(request.raw.socket instanceof Socket);
    // Deliveries the request records wait for its answer (request-scope.ts), once a delivery thread runs.
    if (core.ci.hookWorker.defersToRequests) runInRequestScope(reply.raw, done);
    else done();
  });
  instance.addHook('onResponse', (request, reply, done) => {
    core.monitoring.metrics.recordResponse(request, reply);
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
  allowCrossOriginRequests(instance, context.config.externalUrl, { discovery: mount.api !== 'local-run' });
  handleJsonAsGitlabDoes(instance);
  await instance.register(formbody, { parser: (body: string) => parseGitlabQuery(body) });
  await instance.register(multipart, { limits: { fileSize: limits.upload, fieldSize: limits.api, fields: 1000, files: 10 } });
  // Each coordinator streams uploads into a directory of its own; what a dead one left is removed by reconciliation.
  collectMultipartBodies(instance, uploadsDirectory(context.config.dataDir, context.instance.id), limits.upload);
  instance.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  // Several coordinators count against one limit: the counters live in the database.
  await instance.register(rateLimit, { global: false, ...(context.dialect === 'postgres' ? { store: sharedThrottleCounters(context.stores.throttleCounters) } : {}) });
  const throttles = new RequestThrottles(instance, () => context.settings.values(), () => context.settings.peek());
  const services = buildServices(context, core.ci, { jobRequestLongPollSeconds: core.jobRequestLongPollSeconds, packageFileLimit: core.packageFileLimit });

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
        // GitLab's "user using the API" activity: the token's owner, written at most once a day, in the background.
        if (request.actor !== null && request.credentialUser !== null) services.userActivity.requested(request.credentialUser);
        done();
      });
      api.addHook('onSend', closeOnUnreadBodies);
      const edge = { externalUrl: context.config.externalUrl };
      // Imported when mounted: a `local-run` coordinator never loads the other areas' modules.
      if (mount.api === 'local-run') await (await import('./api/local-run.ts')).registerLocalRunApi(api, services, edge);
      else await (await import('./api/index.ts')).registerApi(api, services, edge);
    },
    { prefix: '/api/v4' },
  );
  registerMonitoringRoutes(instance, core.monitoring.routes);
  if (mount.api !== 'local-run') registerOidcDiscovery(instance, { externalUrl: context.config.externalUrl, signingKey: services.ciSigningKey });
  const projectPages = registerWebPages(instance, { externalUrl: context.config.externalUrl, sessions: context.stores.webSessions, users: context.stores.users, throttles, services });
  await registerGitHttp(instance, context, {
    projectPages,
    personalTokens: authenticator,
    branchRules: context.protectedBranches,
    tagRules: context.protectedTags,
    webDownloads: new WebDownloads(services, authenticator, throttles),
  });
}
