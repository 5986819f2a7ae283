import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { GantryError } from '../../../../shared/errors.ts';
import type { Logger } from '../../../../shared/logger.ts';
import { preparePushHooks, type PushHookSetup } from '../../../../storage/git/hooks.ts';
import { runHttpBackend, type HttpBackendResponse } from '../../../../storage/git/http-backend.ts';
import type { RepositoryManager } from '../../../../storage/git/types.ts';
import { GitWorkRefusedError, type WorkSlot } from '../../../../storage/git/work-queue.ts';
import type { ProjectRecord, ProjectsStore } from '../../../../storage/types.ts';
import type { CoordinatorEvents } from '../../events.ts';
import type { Lookup } from '../../access/lookup.ts';
import { REFUSALS, signInNeeded, type GitAccess, type GitIdentity } from './access.ts';
import { speaksV2, UploadPackAdvertisements } from './advertisements.ts';
import { listsRefs, readCommandHead } from './upload-pack-command.ts';
import type { GitPath } from './paths.ts';
import { computePushPolicy, type BranchPushRules, type TagPushRules } from './push-policy.ts';
import { MalformedPushError, readReceiveCommands } from './receive-commands.ts';

export interface GitHttpRequest {
  method: string;
  target: Extract<GitPath, { kind: 'smart' }>;
  queryString: string;
  authorization?: string;
  contentType?: string;
  contentLength?: string;
  contentEncoding?: string;
  gitProtocol?: string;
  remoteAddr: string;
  body: Readable | null;
  /** Aborts when the client hangs up: queued work leaves the queue, a running backend is stopped. */
  signal?: AbortSignal;
}

export interface GitHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: Readable;
}

export interface GitHttpDependencies {
  lookup: Lookup;
  access: GitAccess;
  repositories: RepositoryManager;
  projects: ProjectsStore;
  events: CoordinatorEvents;
  branchRules: BranchPushRules;
  /** Protected tags; without them tags are unprotected. */
  tagRules?: TagPushRules;
  /** Shared hooks directory every push points core.hooksPath at. */
  hooksDir: string;
  logger: Logger;
}

const PASSED_HEADERS = new Set(['content-type', 'cache-control', 'expires', 'pragma', 'last-modified', 'content-length']);

/** Serves clone, fetch and push through `git http-backend` after our own access checks. */
export class GitHttpService {
  private readonly advertisements = new UploadPackAdvertisements();

  constructor(private readonly deps: GitHttpDependencies) {}

  async handle(request: GitHttpRequest): Promise<GitHttpResponse> {
    const { target } = request;
    if (target.service === null) {
      throw new GantryError('GANTRY_E_GIT_PROTOCOL_UNSUPPORTED', 'The dumb HTTP protocol is not supported; use a git client that speaks the smart protocol.');
    }
    const identity = await this.deps.access.identify(request.authorization);
    const candidate = await this.deps.lookup.findProject(target.projectPath);
    const pushing = target.service === 'git-receive-pack';
    const project = pushing
      ? await this.deps.access.authorizeWrite(candidate, identity)
      : await this.deps.access.authorizeRead(candidate, identity);
    if (!(await this.deps.repositories.exists(project.id))) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND', REFUSALS.notFound);
    const repositoryPath = this.deps.repositories.open(project.id).path;

    if (pushing && target.pathInfo === '/git-receive-pack') return this.receivePack(request, project, identity, repositoryPath);
    const advertising = !pushing && request.method === 'GET' && target.pathInfo === '/info/refs' && speaksV2(request.gitProtocol);
    const remembered = advertising ? this.advertisements.answer(repositoryPath) : undefined;
    if (remembered) return remembered;
    const uploading = target.pathInfo === '/git-upload-pack';
    // A protocol v2 ref listing packs nothing: read far enough to tell (a gzip body is not read).
    const head = uploading && speaksV2(request.gitProtocol) && request.contentEncoding === undefined && request.body ? await readCommandHead(request.body) : undefined;
    // Fetches and clones (the other upload-pack POSTs) are heavy: they wait for a slot, fairly per requester.
    const slot = uploading && !(head !== undefined && listsRefs(head)) ? await this.heavySlot(request, identity) : null;
    try {
      const response = await runHttpBackend({
        ...this.backendBasics(request, identity, repositoryPath),
        contentEncoding: request.contentEncoding,
        body: request.body,
        bodyHead: head,
        config: { 'uploadpack.allowFilter': 'true' },
        heavy: slot !== null,
      }, this.deps.repositories.spawner);
      if (advertising) return await this.advertisements.remember(repositoryPath, response, passedHeaders(response));
      const relayed = this.relay(response, async () => undefined, request.signal);
      relayed.body.once('close', () => slot?.release());
      return relayed;
    } catch (error) {
      slot?.release();
      throw error;
    }
  }

  private async heavySlot(request: GitHttpRequest, identity: GitIdentity): Promise<WorkSlot> {
    const key = identity.user ? `user:${identity.user.id}` : `address:${request.remoteAddr}`;
    try {
      return await this.deps.repositories.work.acquire({ key, signal: request.signal });
    } catch (error) {
      if (error instanceof GitWorkRefusedError) throw new GantryError(error.code, 'Too many clones and fetches are waiting; try again later.');
      throw error;
    }
  }

  private async receivePack(request: GitHttpRequest, project: ProjectRecord, identity: GitIdentity, repositoryPath: string): Promise<GitHttpResponse> {
    const user = identity.user;
    if (!user || !request.body) throw signInNeeded();
    // Inflate here: the ref commands must be read before git sees the body.
    const gzipped = request.contentEncoding?.toLowerCase() === 'gzip';
    const body = gzipped ? request.body.pipe(createGunzip()) : request.body;
    const received = await readReceiveCommands(body).catch((error: unknown) => {
      throw error instanceof MalformedPushError ? new GantryError('GANTRY_E_PUSH_MALFORMED', `The push request is malformed: ${error.message}`) : error;
    });
    const policy = await computePushPolicy(this.deps.branchRules, project, user, received.commands, this.deps.tagRules);
    const hooks = await preparePushHooks(this.deps.hooksDir, policy, received.commands.length);
    const response = await runHttpBackend({
      ...this.backendBasics(request, identity, repositoryPath),
      contentLength: gzipped ? undefined : request.contentLength,
      body,
      bodyHead: received.head,
      environment: hooks.environment,
      config: hooks.config,
    }, this.deps.repositories.spawner);
    return this.relay(response, () => this.publishPushes(project, user.id, hooks), request.signal);
  }

  private backendBasics(request: GitHttpRequest, identity: GitIdentity, repositoryPath: string) {
    const user = identity.user;
    return {
      repositoryPath,
      method: request.method === 'POST' ? ('POST' as const) : ('GET' as const),
      pathInfo: request.target.pathInfo,
      queryString: request.queryString,
      contentType: request.contentType,
      contentLength: request.contentLength,
      gitProtocol: request.gitProtocol && /^[A-Za-z0-9=:._-]+$/.test(request.gitProtocol) ? request.gitProtocol : undefined,
      remoteUser: user ? { username: user.username, name: user.name, email: user.email } : undefined,
      remoteAddr: request.remoteAddr,
    };
  }

  /**
   * Streams the backend's body; ends it only after `afterExit` ran (push events are out by
   * then). The backend is stopped when the body is dropped or the client hangs up.
   */
  private relay(response: HttpBackendResponse, afterExit: () => Promise<void>, signal: AbortSignal | undefined): GitHttpResponse {
    const headers = passedHeaders(response);
    const out = new PassThrough();
    let ended = false;
    const onAbort = (): void => {
      if (!ended) out.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    out.on('close', () => {
      signal?.removeEventListener('abort', onAbort);
      if (!ended) response.kill();
    });
    response.body.pipe(out, { end: false });
    response.body.on('end', () => {
      void response.finished
        .then(async ({ exitCode, stderr }) => {
          if (exitCode !== 0) this.deps.logger.warn({ exitCode, stderr }, 'git http-backend failed');
          await afterExit();
        })
        .catch((error: unknown) => this.deps.logger.error({ err: error }, 'after git http-backend'))
        .finally(() => {
          ended = true;
          out.end();
        });
    });
    return { status: response.status, headers, body: out };
  }

  private async publishPushes(project: ProjectRecord, userId: number, hooks: PushHookSetup): Promise<void> {
    const updates = await hooks.acceptedUpdates();
    if (updates.length === 0) return;
    await this.deps.projects.update(project.id, { last_activity_at: new Date().toISOString() });
    await this.deps.events.publishPushes(updates.map((update) => ({ project_id: project.id, ref: update.ref, before: update.before, after: update.after, user_id: userId })));
  }
}

/** The backend's headers a client gets. */
function passedHeaders(response: HttpBackendResponse): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) if (PASSED_HEADERS.has(name)) headers[name] = value;
  return headers;
}
