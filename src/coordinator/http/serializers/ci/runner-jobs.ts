import type { RunnerJobView } from '../../../services/ci/runners/views.ts';
import { jobFields, jobWebUrl, secondsBetween } from './jobs.ts';
import { serializeProjectNames } from '../namespaces/projects.ts';
import { serializeUserBasic } from '../user-basic.ts';

/**
 * A job as `GET /runners/:id/jobs` lists it (GitLab's `JobBasicWithProject`), kept to what the
 * coordinator knows without reading git: the commit carries its id and short id only, the
 * pipeline and user their short forms, and the duration whole seconds.
 */
export function serializeRunnerJob({ job, project, pipeline, user }: RunnerJobView, externalUrl: string, now = Date.now()) {
  const projectPath = project ? `${project.namespace.full_path}/${project.project.path}` : undefined;
  const duration = secondsBetween(job.started_at, job.finished_at, now);
  return {
    ...jobFields(job),
    duration: duration === null ? null : Math.round(duration),
    user: user ? serializeUserBasic(user, externalUrl) : null,
    commit: { id: job.sha, short_id: job.sha.slice(0, 8) },
    pipeline: pipeline ? { id: pipeline.id, project_id: pipeline.project_id, ref: pipeline.ref, sha: pipeline.sha, status: pipeline.status } : null,
    web_url: projectPath === undefined ? null : jobWebUrl(job, externalUrl, projectPath),
    project: project ? { ...serializeProjectNames(project), created_at: project.project.created_at } : null,
  };
}
