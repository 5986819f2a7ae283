import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeMergeRequestApprovals } from '../../http/serializers/planning/merge-requests.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const tags = ['merge_requests'];
const MergeRequestPath = Type.Object({
  id: Param.string({ description: 'Project id or URL-encoded full path' }),
  merge_request_iid: Param.integer({ description: 'The merge request iid' }),
});
const ApproveBody = Type.Object({
  sha: Type.Optional(Param.string({ description: 'The head the caller reviewed: another head is a 409', maxLength: 64 })),
  approval_password: Type.Optional(Param.string({ description: 'Accepted and ignored (Gantry never requires a password to approve)', maxLength: 1024 })),
});

/**
 * `GET .../approvals`, `GET .../approval_state`, `POST .../approve` and `POST .../unapprove`
 * below `/projects/:id/merge_requests/:merge_request_iid`: GitLab's free-tier approvals.
 */
export function mergeRequestApprovalsRoutes({ mergeRequestApprovals }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  const { externalUrl } = edge;
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const base = '/projects/:id/merge_requests/:merge_request_iid';

    api.get(`${base}/approvals`, { schema: { summary: "A merge request's approvals (no rules, none required)", tags, params: MergeRequestPath } }, async (request) => {
      return serializeMergeRequestApprovals(await mergeRequestApprovals.state(request.params.id, request.actor, request.params.merge_request_iid), externalUrl);
    });

    api.get(`${base}/approval_state`, { schema: { summary: "A merge request's approval rules (none: free tier)", tags, params: MergeRequestPath } }, async (request) => {
      await mergeRequestApprovals.state(request.params.id, request.actor, request.params.merge_request_iid);
      return { approval_rules_overwritten: false, rules: [] };
    });

    api.post(`${base}/approve`, { schema: { summary: 'Approve a merge request', tags, params: MergeRequestPath, body: Type.Optional(ApproveBody) } }, async (request, reply) => {
      const state = await mergeRequestApprovals.approve(request.params.id, requireActor(request), request.params.merge_request_iid, request.body?.sha);
      return reply.code(201).send(serializeMergeRequestApprovals(state, externalUrl));
    });

    api.post(`${base}/unapprove`, { schema: { summary: 'Take back your approval of a merge request', tags, params: MergeRequestPath } }, async (request, reply) => {
      const state = await mergeRequestApprovals.unapprove(request.params.id, requireActor(request), request.params.merge_request_iid);
      return reply.code(201).send(serializeMergeRequestApprovals(state, externalUrl));
    });
  };
}
