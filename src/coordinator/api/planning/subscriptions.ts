import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { serializeIssue } from '../../http/serializers/planning/issues.ts';
import { serializeLabel } from '../../http/serializers/planning/labels.ts';
import { serializeMergeRequestTarget } from '../../http/serializers/planning/merge-request-target.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const tags = ['subscriptions'];
const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const IssuePath = Type.Object({ ...PROJECT, issue_iid: Param.integer({ description: 'The issue iid' }) });
const MergeRequestPath = Type.Object({ ...PROJECT, merge_request_iid: Param.integer({ description: 'The merge request iid' }) });
const LabelPath = Type.Object({ ...PROJECT, label_id: Param.string({ description: "The label id or name (the project's, or a group label it sees)" }) });
const GroupLabelPath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }), label_id: Param.string({ description: "The label id or name (the group's, or an ancestor's)" }) });

/**
 * `POST /projects/:id/:subscribable_type/:subscribable_id/subscribe|unsubscribe`, one route per
 * type (issues and merge requests by iid, labels by id or name; group labels under `/groups/:id`): 201 with the entity when the
 * caller's subscription changes, 304 with no body when it does not.
 */
export function subscriptionsRoutes({ subscriptions }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    for (const action of ['subscribe', 'unsubscribe'] as const) {
      const subscribe = action === 'subscribe';
      const verb = subscribe ? 'Subscribe to' : 'Unsubscribe from';

      api.post(`/projects/:id/issues/:issue_iid/${action}`, { schema: { summary: `${verb} an issue`, tags, params: IssuePath } }, async (request, reply) => {
        const change = await subscriptions.setOnIssue(request.params.id, requireActor(request), request.params.issue_iid, subscribe);
        if (!change.changed) return reply.code(304).send();
        return reply.code(201).send(serializeIssue(change.subject, edge.externalUrl, true, change.subscribed));
      });

      for (const kind of ['project', 'group'] as const) {
        const params = kind === 'project' ? LabelPath : GroupLabelPath;
        api.post(`/${kind}s/:id/labels/:label_id/${action}`, { schema: { summary: `${verb} a ${kind} label`, tags, params } }, async (request, reply) => {
          const change = await subscriptions.setOnLabel({ kind, ref: request.params.id }, requireActor(request), { ref: request.params.label_id }, subscribe);
          if (!change.changed) return reply.code(304).send();
          return reply.code(201).send(serializeLabel(change.subject, kind === 'project', change.subscribed));
        });
      }

      api.post(`/projects/:id/merge_requests/:merge_request_iid/${action}`, { schema: { summary: `${verb} a merge request`, tags, params: MergeRequestPath } }, async (request, reply) => {
        const change = await subscriptions.setOnMergeRequest(request.params.id, requireActor(request), request.params.merge_request_iid, subscribe);
        if (!change.changed) return reply.code(304).send();
        const { mergeRequest, projectPath } = change.subject;
        return reply.code(201).send(serializeMergeRequestTarget(mergeRequest, projectPath, edge.externalUrl, change.subscribed));
      });
    }
  };
}
