import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import { Param } from '../../http/gitlab-params.ts';
import type { CoordinatorServices } from '../../wiring.ts';
import { repositoryClient } from './client.ts';
import { PROJECT_ID } from './params.ts';

const CommitPath = Type.Object({ ...PROJECT_ID, sha: Param.string({ description: 'Commit id, branch or tag' }) });

/** `GET /projects/:id/repository/commits/:sha/signature`: the GPG signature of a commit, verified with gpg. */
export function commitSignaturesRoutes({ commitSignatures }: CoordinatorServices): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const schema = { summary: "Get a commit's GPG signature and its verification", tags: ['commits'], params: CommitPath };
    api.get('/projects/:id/repository/commits/:sha/signature', { schema }, async (request, reply) =>
      commitSignatures.signature(request.params.id, request.actor, request.params.sha, repositoryClient(request, reply)),
    );
  };
}
