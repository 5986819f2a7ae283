import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '#deps/typebox';
import type { IncludedFile, JobDefinition } from '../../../ci/model.ts';
import { templateRawUrl } from '../../../ci/include-template.ts';
import type { LintOutcome } from '../../services/ci/pipelines/lint.ts';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

const ProjectId = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }) });
const ScheduleIds = Type.Object({ id: Param.string({ description: 'Project id or URL-encoded full path' }), pipeline_schedule_id: Param.integer({ minimum: 1 }) });

const LintBody = Type.Object({
  content: Param.string({ description: 'The CI configuration (YAML)' }),
  include_merged_yaml: Type.Optional(Param.boolean({ description: 'Answer the configuration after includes and extends' })),
});
const ProjectLintOptions = {
  dry_run: Type.Optional(Param.boolean({ description: 'Simulate pipeline creation for the ref' })),
  include_jobs: Type.Optional(Param.boolean({ description: 'List the jobs the configuration defines' })),
  ref: Type.Optional(Param.string({ description: 'Branch or tag (default: the default branch)' })),
};
const ProjectLintQuery = Type.Object(ProjectLintOptions);
const ProjectLintBody = Type.Object({ content: Param.string({ description: 'The CI configuration (YAML)' }), ...ProjectLintOptions });

const tags = ['ci-lint'];

/** CI lint over the API (the compiler pipelines use), and playing a pipeline schedule. */
export function ciLintRoutes({ ciLint, schedulePipelines }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();

    api.post('/ci/lint', { schema: { summary: 'Check a CI configuration', tags, body: LintBody } }, async (request) => {
      requireActor(request);
      const lint = await ciLint.lintContent(request.body.content);
      return {
        status: lint.valid ? 'valid' : 'invalid',
        errors: lint.errors,
        warnings: lint.warnings,
        ...(request.body.include_merged_yaml ? { merged_yaml: lint.mergedYaml } : {}),
      };
    });

    api.get('/projects/:id/ci/lint', { schema: { summary: "Check the project's CI file", tags, params: ProjectId, querystring: ProjectLintQuery } }, async (request) => {
      const { dry_run: dryRun, include_jobs: includeJobs, ref } = request.query;
      return projectLintJson(await ciLint.lintProject(request.params.id, requireActor(request), { dryRun: dryRun ?? false, includeJobs: includeJobs ?? false, ref }), edge.externalUrl);
    });

    api.post('/projects/:id/ci/lint', { schema: { summary: 'Check a CI configuration in the context of the project', tags, params: ProjectId, body: ProjectLintBody } }, async (request) => {
      const { content, dry_run: dryRun, include_jobs: includeJobs, ref } = request.body;
      return projectLintJson(await ciLint.lintProject(request.params.id, requireActor(request), { content, dryRun: dryRun ?? false, includeJobs: includeJobs ?? false, ref }), edge.externalUrl);
    });

    api.post('/projects/:id/pipeline_schedules/:pipeline_schedule_id/play', { schema: { summary: 'Run a pipeline schedule now', tags: ['pipeline schedules'], params: ScheduleIds } }, async (request, reply) => {
      await schedulePipelines.play(request.params.id, requireActor(request), request.params.pipeline_schedule_id);
      return reply.code(201).send({ message: '201 Created' });
    });
  };
}

function projectLintJson(lint: LintOutcome, externalUrl: string) {
  return {
    valid: lint.valid,
    errors: lint.errors,
    warnings: lint.warnings,
    merged_yaml: lint.mergedYaml,
    includes: lint.source ? lint.includes.map((file) => includeJson(file, lint.source!, externalUrl)) : [],
    ...(lint.jobs ? { jobs: lint.jobs.map(lintJobJson) } : {}),
  };
}

/**
 * GitLab's include metadata: `blob` and `raw` address a repository file (the pipeline's
 * project at its commit, or the other project at the ref given), `raw` alone a remote file.
 */
function includeJson(file: IncludedFile, source: { projectPath: string; sha: string }, externalUrl: string) {
  const inRepository = file.type === 'local' || file.type === 'file';
  const project = file.project ?? source.projectPath;
  const at = (kind: 'blob' | 'raw') => `${externalUrl}/${project}/-/${kind}/${file.ref ?? source.sha}/${file.location.replace(/^\/+/, '')}`;
  return {
    type: file.type,
    location: file.location,
    blob: inRepository ? at('blob') : null,
    raw: inRepository ? at('raw') : file.type === 'remote' ? file.location : file.type === 'template' ? templateRawUrl(file.location) : null,
    extra: file.extra,
    context_project: file.contextProject ?? source.projectPath,
    context_sha: file.contextRef ?? source.sha,
  };
}

function lintJobJson(job: JobDefinition) {
  return {
    name: job.name,
    stage: job.stage,
    before_script: job.beforeScript,
    script: job.script,
    after_script: job.afterScript,
    tag_list: job.tags,
    environment: job.environment?.name ?? null,
    when: job.when,
    allow_failure: job.allowFailure,
    only: null,
    except: null,
    needs: job.needs?.map((need) => ({ name: need.job })) ?? [],
  };
}
