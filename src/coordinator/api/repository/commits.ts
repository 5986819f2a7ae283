import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { missingParam } from '../../../shared/errors.ts';
import type { CommitCommentLineType } from '../../../storage/types-commit-comments.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { jsonArray } from '../../http/json-stream.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { requestSignal } from '../../http/request-lifetimes.ts';
import { serializeCommit, serializeCommitComment, serializeCommitDetail, serializeCommitWithStats, serializeDiff, type CommitUrlBase } from '../../http/serializers/repository/commits.ts';
import type { ReadableRepository } from '../../services/repository/access.ts';
import type { CommentInput } from '../../services/repository/commit-comments.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { COMMIT_ACTIONS, COMMIT_WRITE_ANSWERS, parseCommitActions, PROJECT_ID, ProjectPath } from './params.ts';
import { repositoryClient } from './client.ts';

const CommitPath = Type.Object({ ...PROJECT_ID, sha: Param.string({ description: 'Commit id, branch or tag' }) });

const ListQuery = Type.Object({
  ref_name: Type.Optional(Param.string({ description: 'Branch, tag or commit to start from (default branch when absent)' })),
  since: Type.Optional(Param.dateTime({ description: 'Only commits after this time' })),
  until: Type.Optional(Param.dateTime({ description: 'Only commits before this time' })),
  path: Type.Optional(Param.string({ description: 'Only commits touching this path' })),
  all: Type.Optional(Param.boolean({ description: 'Every commit of the repository' })),
  with_stats: Type.Optional(Param.boolean({ description: 'Each commit with its stats' })),
  author: Type.Optional(Param.string({ description: "Only commits whose author's name or e-mail contains this" })),
  first_parent: Type.Optional(Param.boolean({ description: 'Follow only the first parent of merge commits' })),
  order: Type.Optional(Param.oneOf(['default', 'topo'], { description: 'default (git log order) or topo' })),
  ...PAGINATION,
});

const CreateBody = Type.Object({
  branch: Param.string({ minLength: 1, description: 'Branch to commit to (created from start_branch when new)' }),
  commit_message: Param.string({ minLength: 1, description: 'Commit message' }),
  actions: COMMIT_ACTIONS,
  start_branch: Type.Optional(Param.string({ description: 'Branch to start a new branch from' })),
  author_name: Type.Optional(Param.string({ description: 'Author name (default: the caller)' })),
  author_email: Type.Optional(Param.string({ description: 'Author email (default: the caller)' })),
  stats: Type.Optional(Param.boolean({ description: 'Include the commit stats (default true)' })),
});

const StatsQuery = Type.Object({ stats: Type.Optional(Param.boolean({ description: 'Include the commit stats (default true)' })) });
const BranchBody = Type.Object({ branch: Param.string({ minLength: 1, description: 'Target branch' }) });
const PageQuery = Type.Object(PAGINATION);
const REF_TYPES = ['branch', 'tag', 'all'] as const;
const RefsQuery = Type.Object({ type: Type.Optional(Param.oneOf(REF_TYPES, { description: 'Which refs (default all)' })), ...PAGINATION });
const LINE_TYPES = ['new', 'old'] as const;

const CommentBody = Type.Object({
  note: Param.string({ minLength: 1, description: 'Comment text' }),
  path: Type.Optional(Param.string({ description: 'File the comment is about' })),
  line: Type.Optional(Param.integer({ description: 'Line the comment is about (with path)' })),
  line_type: Type.Optional(Param.oneOf(LINE_TYPES, { description: 'Side of the diff the line is on (with path)' })),
});

const tags = ['commits'];

/** `/projects/:id/repository/commits[...]`: history, single commit, diff, create, cherry-pick, revert, comments. */
export function repositoryCommitsRoutes({ commits, commitComments }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  const urls = (target: ReadableRepository): CommitUrlBase => ({ externalUrl, projectFullPath: target.fullPath });
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/repository/commits';

    api.get(base, { schema: { summary: 'List repository commits', tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const { query } = request;
      const page = pageOf(query);
      const history = {
        refName: query.ref_name || undefined,
        since: query.since,
        until: query.until,
        path: query.path || undefined,
        all: query.all ?? false,
        author: query.author || undefined,
        firstParent: query.first_parent,
        order: query.order,
      };
      const withStats = query.with_stats ?? false;
      const { target, items, total } = await commits.list(request.params.id, request.actor, history, { offset: page.offset, limit: page.perPage }, withStats);
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(({ commit, stats }) => (stats ? serializeCommitWithStats(commit, stats, urls(target)) : serializeCommit(commit, urls(target))));
    });

    api.post(base, { schema: { summary: 'Create a commit with file actions', tags, params: ProjectPath, body: CreateBody }, config: { errorAnswers: COMMIT_WRITE_ANSWERS } }, async (request, reply) => {
      const actor = requireActor(request);
      const { body } = request;
      const write = {
        branch: body.branch,
        message: body.commit_message,
        actions: parseCommitActions(body.actions),
        startBranch: body.start_branch || undefined,
        authorName: body.author_name || undefined,
        authorEmail: body.author_email || undefined,
        signal: requestSignal(reply),
      };
      const { target, commit, detail } = await commits.create(request.params.id, actor, write, body.stats ?? true);
      return reply.code(201).send(serializeCommitDetail(commit, detail, urls(target)));
    });

    api.get(`${base}/:sha`, { schema: { summary: 'Get a commit', tags, params: CommitPath, querystring: StatsQuery } }, async (request) => {
      const { target, commit, detail } = await commits.get(request.params.id, request.actor, request.params.sha, request.query.stats ?? true);
      return serializeCommitDetail(commit, detail, urls(target));
    });

    for (const mode of ['cherry_pick', 'revert'] as const) {
      const summary = mode === 'cherry_pick' ? 'Cherry-pick a commit onto a branch' : 'Revert a commit on a branch';
      api.post(`${base}/:sha/${mode}`, { schema: { summary, tags, params: CommitPath, body: BranchBody } }, async (request, reply) => {
        const actor = requireActor(request);
        const { target, commit } = await commits.replay(mode, request.params.id, actor, request.params.sha, request.body.branch);
        return reply.code(201).send(serializeCommit(commit, urls(target)));
      });
    }

    api.get(`${base}/:sha/diff`, { schema: { summary: 'Get the diff of a commit', tags, params: CommitPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await commits.diff(request.params.id, request.actor, request.params.sha, { offset: page.offset, limit: page.perPage }, repositoryClient(request, reply));
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return reply.type('application/json').send(Readable.from(jsonArray(items, serializeDiff), { objectMode: false }));
    });

    api.get(`${base}/:sha/refs`, { schema: { summary: 'List the branches and tags containing a commit', tags, params: CommitPath, querystring: RefsQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await commits.refs(request.params.id, request.actor, request.params.sha, request.query.type ?? 'all', { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items;
    });

    api.get(`${base}/:sha/comments`, { schema: { summary: 'List the comments on a commit', tags, params: CommitPath, querystring: PageQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const { items, total } = await commitComments.list(request.params.id, request.actor, request.params.sha, { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, externalUrl, page, { total });
      return items.map(({ comment, author }) => serializeCommitComment(comment, author, externalUrl));
    });

    api.post(`${base}/:sha/comments`, { schema: { summary: 'Comment on a commit', tags, params: CommitPath, body: CommentBody } }, async (request, reply) => {
      const actor = requireActor(request);
      const input: CommentInput = { note: request.body.note, position: commentPosition(request.body) };
      const { comment, author } = await commitComments.create(request.params.id, actor, request.params.sha, input, repositoryClient(request, reply));
      return reply.code(201).send(serializeCommitComment(comment, author, externalUrl));
    });
  };
}

/** GitLab's `given :path do requires :line, :line_type`: a path needs both. */
function commentPosition(body: { path?: string; line?: number; line_type?: CommitCommentLineType }): CommentInput['position'] {
  const path = body.path || undefined;
  if (path === undefined) return undefined;
  if (body.line === undefined) throw missingParam('line');
  if (body.line_type === undefined) throw missingParam('line_type');
  return { path, line: body.line, lineType: body.line_type };
}
