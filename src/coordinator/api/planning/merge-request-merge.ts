import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeIssue } from '../../http/serializers/planning/issues.ts';
import { serializeUserBasic } from '../../http/serializers/user-basic.ts';
import type { MergeRequestMergeView } from '../../services/planning/merge-requests/merge-view.ts';
import { isDraftTitle } from '../../services/planning/merge-requests/merge-rules.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const MergeRequestPath = Type.Object({
  id: Param.string({ description: 'Project id or URL-encoded full path' }),
  merge_request_iid: Param.integer({ description: 'The merge request iid' }),
});
const CommitPath = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), sha: Param.string({ description: 'A commit SHA' }) });
const MergeBody = Type.Object({
  merge_commit_message: Type.Optional(Param.string({ description: 'The merge commit message (default: GitLab\'s "Merge branch …")' })),
  squash_commit_message: Type.Optional(Param.string({ description: 'The squash commit message (default: the title)' })),
  squash: Type.Optional(Param.boolean({ description: 'Squash the commits into one' })),
  should_remove_source_branch: Type.Optional(Param.boolean({ description: 'Delete the source branch after the merge' })),
  merge_when_pipeline_succeeds: Type.Optional(Param.boolean({ description: 'Merge when the head pipeline succeeds' })),
  sha: Type.Optional(Param.string({ description: 'The source tip the caller expects: 409 when the branch is elsewhere' })),
});

/**
 * The merge fields of GitLab's MergeRequest entity. The full entity (labels, assignees,
 * references, diff_refs …) is the merge request routes' serializer: this answer is replaced
 * by it once both are on main.
 */
export function serializeMergedRequest({ record, fullPath, users }: MergeRequestMergeView, externalUrl: string) {
  const user = (id: number | null) => {
    const found = id === null ? undefined : users.get(id);
    return found ? serializeUserBasic(found, externalUrl) : null;
  };
  const draft = isDraftTitle(record.title);
  return {
    id: record.id,
    iid: record.iid,
    project_id: record.project_id,
    title: record.title,
    description: record.description,
    state: record.state,
    created_at: record.created_at,
    updated_at: record.updated_at,
    merged_by: user(record.merged_by_id),
    merge_user: user(record.merged_by_id ?? record.merge_user_id),
    merged_at: record.merged_at,
    closed_by: user(record.closed_by_id),
    closed_at: record.closed_at,
    target_branch: record.target_branch,
    source_branch: record.source_branch,
    author: user(record.author_id),
    source_project_id: record.source_project_id,
    target_project_id: record.project_id,
    draft,
    work_in_progress: draft,
    merge_when_pipeline_succeeds: record.merge_when_pipeline_succeeds,
    merge_status: record.merge_status,
    detailed_merge_status: record.state === 'merged' ? 'merged' : record.merge_status,
    merge_error: record.merge_error,
    sha: record.head_sha,
    merge_commit_sha: record.merge_commit_sha,
    squash_commit_sha: record.squash_commit_sha,
    should_remove_source_branch: record.should_remove_source_branch,
    force_remove_source_branch: record.force_remove_source_branch,
    squash: record.squash,
    web_url: `${externalUrl}/${fullPath}/-/merge_requests/${record.iid}`,
  };
}

/**
 * Merging merge requests: `PUT …/merge` (now, or when the head pipeline succeeds), its cancel,
 * `GET …/closes_issues` and `GET …/repository/commits/:sha/merge_requests`.
 */
export function mergeRequestMergeRoutes({ mergeRequestMerge, autoMerge, closesIssues, mergeLookups }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
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
      return serializeMergedRequest(await mergeRequestMerge.describeIn(id, actor, merged), edge.externalUrl);
    });

    api.post(
      '/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
      { schema: { summary: 'Cancel merge when pipeline succeeds', tags: ['merge_requests'], params: MergeRequestPath } },
      async (request, reply) => {
        const actor = requireActor(request);
        const canceled = await autoMerge.cancel(request.params.id, actor, request.params.merge_request_iid);
        return reply.code(201).send(serializeMergedRequest(await mergeRequestMerge.describeIn(request.params.id, actor, canceled), edge.externalUrl));
      },
    );

    api.get('/projects/:id/merge_requests/:merge_request_iid/closes_issues', { schema: { summary: 'Issues the merge request closes on merge', tags: ['merge_requests'], params: MergeRequestPath } }, async (request) => {
      const views = await closesIssues.list(request.params.id, request.actor ?? null, request.params.merge_request_iid);
      return views.map((view) => serializeIssue(view, edge.externalUrl));
    });

    api.get('/projects/:id/repository/commits/:sha/merge_requests', { schema: { summary: 'Merge requests of a commit', tags: ['commits'], params: CommitPath } }, async (request) => {
      const views = await mergeLookups.forCommit(request.params.id, request.actor ?? null, request.params.sha);
      return views.map((view) => serializeMergedRequest(view, edge.externalUrl));
    });
  };
}
