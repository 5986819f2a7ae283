import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders, slicePage } from '../../http/pagination.ts';
import { serializeIssue } from '../../http/serializers/planning/issues.ts';
import { serializeMergeRequest, serializeMergeRequestSingle } from '../../http/serializers/planning/merge-requests.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const MergeRequestPath = Type.Object({
  id: Param.string({ description: 'Project id or URL-encoded full path' }),
  merge_request_iid: Param.integer({ description: 'The merge request iid' }),
});
const CommitPath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), sha: Param.string({ description: 'A commit SHA' }) });
const ListQuery = Type.Object(PAGINATION);
const MergeBody = Type.Object({
  merge_commit_message: Type.Optional(Param.string({ description: 'The merge commit message (default: GitLab\'s "Merge branch …")' })),
  squash_commit_message: Type.Optional(Param.string({ description: 'The squash commit message (default: the title)' })),
  squash: Type.Optional(Param.boolean({ description: 'Squash the commits into one' })),
  should_remove_source_branch: Type.Optional(Param.boolean({ description: 'Delete the source branch after the merge' })),
  merge_when_pipeline_succeeds: Type.Optional(Param.boolean({ description: 'Merge when the head pipeline succeeds' })),
  sha: Type.Optional(Param.string({ description: 'The source tip the caller expects: 409 when the branch is elsewhere' })),
});

const RebaseBody = Type.Object({
  skip_ci: Type.Optional(Param.boolean({ description: 'Push the rebase with the ci.skip option: its branch and merge request pipelines are saved skipped' })),
});

/**
 * Merging merge requests: `PUT …/merge` (now, or when the head pipeline succeeds), `PUT …/rebase`, its cancel,
 * `GET …/closes_issues` and `GET …/repository/commits/:sha/merge_requests`.
 */
export function mergeRequestMergeRoutes(services: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { mergeRequestMerge, mergeRequestRebase, autoMerge, closesIssues, mergeLookups, mergeRequests, mergeRequestViews } = services;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    api.put('/projects/:id/merge_requests/:merge_request_iid/merge', { schema: { summary: 'Merge a merge request', tags: ['merge_requests'], params: MergeRequestPath, body: MergeBody } }, async (request) => {
      const actor = requireActor(request);
      const { id, merge_request_iid: iid } = request.params;
      const body = request.body;
      const options = {
        sha: body.sha,
        mergeCommitMessage: body.merge_commit_message,
        squashCommitMessage: body.squash_commit_message,
        squash: body.squash,
        shouldRemoveSourceBranch: body.should_remove_source_branch,
      };
      const merged = body.merge_when_pipeline_succeeds ? await autoMerge.mergeWhenPipelineSucceeds(id, actor, iid, options) : await mergeRequestMerge.merge(id, actor, iid, options);
      return serializeMergeRequestSingle(await mergeRequests.get(id, actor, merged.iid), edge.externalUrl);
    });

    // GitLab queues the rebase and answers at once; here it is done when this answers, so nothing is in progress.
    api.put('/projects/:id/merge_requests/:merge_request_iid/rebase', { schema: { summary: 'Rebase the source branch onto the target branch', tags: ['merge_requests'], params: MergeRequestPath, body: RebaseBody } }, async (request, reply) => {
      await mergeRequestRebase.rebase(request.params.id, requireActor(request), request.params.merge_request_iid, { skipCi: request.body?.skip_ci === true });
      return reply.code(202).send({ rebase_in_progress: false });
    });

    api.post(
      '/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
      { schema: { summary: 'Cancel merge when pipeline succeeds', tags: ['merge_requests'], params: MergeRequestPath } },
      async (request, reply) => {
        const canceled = await autoMerge.cancel(request.params.id, requireActor(request), request.params.merge_request_iid);
        // GitLab answers its auto-merge service's result, not the request: a refusal too, with 201.
        return reply.code(201).send(canceled ? { status: 'success' } : { status: 'error', message: "Can't cancel the automatic merge", http_status: 406 });
      },
    );

    // Both lists are paginated in GitLab (X-Total and Link included), though they are short.
    api.get('/projects/:id/merge_requests/:merge_request_iid/closes_issues', { schema: { summary: 'Issues the merge request closes on merge', tags: ['merge_requests'], params: MergeRequestPath, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const views = await closesIssues.list(request.params.id, request.actor ?? null, request.params.merge_request_iid);
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total: views.length });
      return slicePage(views, page).map((view) => serializeIssue(view, edge.externalUrl));
    });

    api.get('/projects/:id/repository/commits/:sha/merge_requests', { schema: { summary: 'Merge requests of a commit', tags: ['commits'], params: CommitPath, querystring: ListQuery } }, async (request, reply) => {
      const page = pageOf(request.query);
      const records = await mergeLookups.forCommit(request.params.id, request.actor ?? null, request.params.sha);
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total: records.length });
      return (await mergeRequestViews.many(slicePage(records, page))).map((view) => serializeMergeRequest(view, edge.externalUrl));
    });
  };
}
