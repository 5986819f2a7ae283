import type { FastifyPluginAsync } from 'fastify';
import { missingParam } from '../../shared/errors.ts';
import type { CoordinatorContext } from '../context.ts';
import { abortOnDisconnect } from '../http/abort.ts';
import { requireActor } from '../http/auth.ts';
import { pageRequest, setPaginationHeaders, slicePage } from '../http/pagination.ts';
import { paramsOf } from '../http/request-params.ts';
import { serializeCommit, serializeCommitComment, serializeCommitDetail, serializeCommitWithStats, serializeDiff } from '../http/serializers/commits.ts';
import { CommitCommentsService } from '../services/repository/commit-comments.ts';
import { CommitsService } from '../services/repository/commits.ts';
import { COMMIT_WRITE_ANSWERS, parseCommitActions } from './repository-params.ts';
import { repositoryClient } from './repository-client.ts';

interface ProjectPath {
  id: string;
}

interface CommitPath extends ProjectPath {
  sha: string;
}

/** `/projects/:id/repository/commits[...]`: history, single commit, diff, create, cherry-pick, revert, comments. */
export function repositoryCommitsRoutes(context: CoordinatorContext): FastifyPluginAsync {
  const commits = new CommitsService(context);
  const comments = new CommitCommentsService(context, commits);
  const { externalUrl } = context.config;
  return async (api) => {
    const base = '/projects/:id/repository/commits';

    api.get<{ Params: ProjectPath }>(base, async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const query = {
        refName: params.string('ref_name') || undefined,
        since: params.dateTime('since'),
        until: params.dateTime('until'),
        path: params.string('path') || undefined,
        all: params.bool('all') ?? false,
      };
      const withStats = params.bool('with_stats') ?? false;
      const target = await commits.readable(request.params.id, request.actor);
      const { items, total } = await commits.list(target, query, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      const urls = commits.urls(target);
      if (!withStats) return items.map((commit) => serializeCommit(commit, urls));
      const stats = await commits.statsFor(target, items);
      return items.map((commit, index) => serializeCommitWithStats(commit, stats[index], urls));
    });

    api.post<{ Params: ProjectPath }>(base, { config: { errorAnswers: COMMIT_WRITE_ANSWERS } }, async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const write = {
        branch: params.requiredString('branch'),
        message: params.requiredString('commit_message'),
        actions: parseCommitActions(params),
        startBranch: params.string('start_branch') || undefined,
        authorName: params.string('author_name') || undefined,
        authorEmail: params.string('author_email') || undefined,
        signal: abortOnDisconnect(reply),
      };
      const withStats = params.bool('stats') ?? true;
      const { target, commit } = await commits.create(request.params.id, actor, write);
      const detail = await commits.detail(target, commit, withStats);
      return reply.code(201).send(serializeCommitDetail(commit, detail, commits.urls(target)));
    });

    api.get<{ Params: CommitPath }>(`${base}/:sha`, async (request) => {
      const withStats = paramsOf(request).bool('stats') ?? true;
      const target = await commits.readable(request.params.id, request.actor);
      const commit = await commits.find(target, request.params.sha);
      return serializeCommitDetail(commit, await commits.detail(target, commit, withStats), commits.urls(target));
    });

    for (const mode of ['cherry_pick', 'revert'] as const) {
      api.post<{ Params: CommitPath }>(`${base}/:sha/${mode}`, async (request, reply) => {
        const actor = requireActor(request);
        const branch = paramsOf(request).requiredString('branch');
        const { target, commit } = await commits.replay(mode, request.params.id, actor, request.params.sha, branch);
        return reply.code(201).send(serializeCommit(commit, commits.urls(target)));
      });
    }

    api.get<{ Params: CommitPath }>(`${base}/:sha/diff`, async (request, reply) => {
      const page = pageRequest(paramsOf(request));
      const target = await commits.readable(request.params.id, request.actor, repositoryClient(request, reply));
      const diffs = await commits.diff(target, request.params.sha);
      setPaginationHeaders(request, reply, externalUrl, page, { total: diffs.length });
      return slicePage(diffs, page).map(serializeDiff);
    });

    api.get<{ Params: CommitPath }>(`${base}/:sha/refs`, async (request, reply) => {
      const params = paramsOf(request);
      const page = pageRequest(params);
      const type = params.oneOf('type', REF_TYPES) ?? 'all';
      const target = await commits.readable(request.params.id, request.actor);
      const refs = await commits.refs(target, request.params.sha, type);
      setPaginationHeaders(request, reply, externalUrl, page, { total: refs.length });
      return slicePage(refs, page);
    });

    api.get<{ Params: CommitPath }>(`${base}/:sha/comments`, async (request, reply) => {
      const page = pageRequest(paramsOf(request));
      const target = await commits.readable(request.params.id, request.actor);
      const { items, total } = await comments.list(target, request.params.sha, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(({ comment, author }) => serializeCommitComment(comment, author, externalUrl));
    });

    api.post<{ Params: CommitPath }>(`${base}/:sha/comments`, async (request, reply) => {
      const actor = requireActor(request);
      const params = paramsOf(request);
      const note = params.requiredString('note');
      const path = params.string('path') || undefined;
      const position = path === undefined ? undefined : { path, line: params.requiredInt('line'), lineType: requiredLineType(params.oneOf('line_type', LINE_TYPES)) };
      const target = await commits.readable(request.params.id, actor, repositoryClient(request, reply));
      const comment = await comments.create(target, actor, request.params.sha, { note, position });
      return reply.code(201).send(serializeCommitComment(comment, actor, externalUrl));
    });
  };
}

const REF_TYPES = ['branch', 'tag', 'all'] as const;
const LINE_TYPES = ['new', 'old'] as const;

function requiredLineType(value: (typeof LINE_TYPES)[number] | undefined): (typeof LINE_TYPES)[number] {
  if (value === undefined) throw missingParam('line_type');
  return value;
}
