import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeMergeRequest, serializeMergeRequestSimple, serializeMergeRequestSingle } from '../../http/serializers/planning/merge-requests.ts';
import { serializeUserBasic } from '../../http/serializers/user-basic.ts';
import type { Paged } from '../../services/repository/pages.ts';
import type { MergeRequestView } from '../../services/planning/merge-requests/views.ts';
import type { MergeRequestDetail } from '../../services/planning/merge-requests/service.ts';
import type { Actor } from '../../services/access/permissions.ts';
import { mergeRequestPipelineFields } from '../../http/serializers/ci/merge-request-pipelines.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { requireAtLeastOneOf } from '../at-least-one.ts';
import { CreateBody, ListQuery, mergeRequestQuery, mergeRequestUpdateInput, newMergeRequestInput, UPDATES, UpdateBody } from './merge-requests-params.ts';

const tags = ['merge_requests'];
const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT);
const GroupPath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }) });
const MergeRequestPath = Type.Object({ ...PROJECT, merge_request_iid: Param.integer({ description: 'The merge request iid' }) });
const PageQuery = Type.Object(PAGINATION);
const ShowQuery = Type.Object({
  include_diverged_commits_count: Type.Optional(Param.boolean({ description: 'Add diverged_commits_count: the target branch commits the head lacks' })),
  include_rebase_in_progress: Type.Optional(Param.boolean({ description: 'Add rebase_in_progress (always false: PUT .../rebase is done before it answers)' })),
  render_html: Type.Optional(Param.boolean({ description: 'Accepted; title_html and description_html are not rendered' })),
});
type PageParams = Parameters<typeof pageOf>[0];

/**
 * Merge requests: `/merge_requests` (signed-in callers), `/groups/:id/merge_requests`,
 * `/projects/:id/merge_requests[/:merge_request_iid[/participants]]` and the merge requests of
 * milestones. Reads follow the project's visibility; writes need a signed-in caller.
 */
export function mergeRequestsRoutes({ mergeRequests, mergeRequestEdits, mergeRequestPipelinesView, mergeRequestDiffs }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  /** The single answer, with its head pipeline (`head_pipeline`, `pipeline`) when the caller may read it. */
  const single = async (detail: MergeRequestDetail, actor: Actor) => {
    const heads = await mergeRequestPipelinesView.headPipelines([detail.view.record], actor);
    return { ...serializeMergeRequestSingle(detail, edge.externalUrl), ...mergeRequestPipelineFields(heads.get(detail.view.record.id), edge.externalUrl) };
  };
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const answerPage = (request: FastifyRequest, reply: FastifyReply, query: PageParams & { view?: 'simple'; with_labels_details?: boolean }, { items, total }: Paged<MergeRequestView>) => {
      setPaginationHeaders(request, reply, edge.externalUrl, pageOf(query), { total });
      const details = query.with_labels_details === true;
      return items.map((view) => (query.view === 'simple' ? serializeMergeRequestSimple(view, edge.externalUrl) : serializeMergeRequest(view, edge.externalUrl, details)));
    };
    const pageFor = (query: PageParams) => {
      const page = pageOf(query);
      return { offset: page.offset, limit: page.perPage };
    };

    api.get('/merge_requests', { schema: { summary: 'List the merge requests the caller may see (by default those they opened)', tags, querystring: ListQuery } }, async (request, reply) => {
      const listed = await mergeRequests.listAll(requireActor(request), mergeRequestQuery(request.query), pageFor(request.query));
      return answerPage(request, reply, request.query, listed);
    });

    api.get('/groups/:id/merge_requests', { schema: { summary: "List the merge requests of a group's projects", tags, params: GroupPath, querystring: ListQuery } }, async (request, reply) => {
      const listed = await mergeRequests.listGroup(request.params.id, request.actor, mergeRequestQuery(request.query), pageFor(request.query));
      return answerPage(request, reply, request.query, listed);
    });

    api.get('/projects/:id/merge_requests', { schema: { summary: "List a project's merge requests", tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const listed = await mergeRequests.listProject(request.params.id, request.actor, mergeRequestQuery(request.query), pageFor(request.query));
      return answerPage(request, reply, request.query, listed);
    });

    for (const kind of ['project', 'group'] as const) {
      const path = kind === 'project' ? '/projects/:id/milestones/:milestone_id/merge_requests' : '/groups/:id/milestones/:milestone_id/merge_requests';
      const params = Type.Object({ id: Param.string({ description: `${kind === 'project' ? 'Project' : 'Group'} id or URL-encoded full path` }), milestone_id: Param.integer({ description: 'The milestone id' }) });
      api.get(path, { schema: { summary: "A milestone's merge requests", tags: ['milestones'], params, querystring: PageQuery } }, async (request, reply) => {
        const listed = await mergeRequests.listMilestone({ kind, ref: request.params.id }, request.actor, request.params.milestone_id, pageFor(request.query));
        return answerPage(request, reply, request.query, listed);
      });
    }

    api.get('/projects/:id/merge_requests/:merge_request_iid', { schema: { summary: 'Get a merge request', tags, params: MergeRequestPath, querystring: ShowQuery } }, async (request) => {
      const { id, merge_request_iid: iid } = request.params;
      const answer: Record<string, unknown> = await single(await mergeRequests.get(id, request.actor, iid), request.actor);
      if (request.query.include_diverged_commits_count === true) answer.diverged_commits_count = await mergeRequestDiffs.divergedCommitsCount(id, request.actor, iid);
      if (request.query.include_rebase_in_progress === true) answer.rebase_in_progress = false;
      return answer;
    });

    api.get('/projects/:id/merge_requests/:merge_request_iid/participants', { schema: { summary: "A merge request's participants (author, assignees, reviewers)", tags, params: MergeRequestPath } }, async (request) => {
      const people = await mergeRequests.participants(request.params.id, request.actor, request.params.merge_request_iid);
      return people.map((user) => serializeUserBasic(user, edge.externalUrl));
    });

    api.post('/projects/:id/merge_requests', { schema: { summary: 'Open a merge request (from this project, into it or the project it was forked from)', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      const actor = requireActor(request);
      const { project, view } = await mergeRequestEdits.create(request.params.id, actor, newMergeRequestInput(request.body));
      return reply.code(201).send(await single(await mergeRequests.detail(project, view, actor), actor));
    });

    api.put('/projects/:id/merge_requests/:merge_request_iid', { schema: { summary: 'Edit, retarget, close or reopen a merge request', tags, params: MergeRequestPath, body: UpdateBody } }, async (request) => {
      requireAtLeastOneOf(request.body, UPDATES);
      const actor = requireActor(request);
      const { project, view } = await mergeRequestEdits.update(request.params.id, actor, request.params.merge_request_iid, mergeRequestUpdateInput(request.body));
      return single(await mergeRequests.detail(project, view, actor), actor);
    });

    api.delete('/projects/:id/merge_requests/:merge_request_iid', { schema: { summary: 'Delete a merge request (Owners)', tags, params: MergeRequestPath } }, async (request, reply) => {
      await mergeRequests.remove(request.params.id, requireActor(request), request.params.merge_request_iid);
      return reply.code(204).send();
    });
  };
}
