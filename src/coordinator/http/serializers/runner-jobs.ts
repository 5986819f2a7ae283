import type { RunnerJobView } from '../../services/runners/views.ts';
import { serializeUserBasic } from './user-basic.ts';

/**
 * A job as `GET /runners/:id/jobs` lists it (GitLab's `JobBasicWithProject`), kept to what the
 * coordinator knows without reading git: the commit carries its id and short id only.
 * Local to the runners area until the jobs API's serializer (serializers/jobs.ts) can take over.
 */
export function serializeRunnerJob({ job, project, pipeline, user }: RunnerJobView, externalUrl: string, now = Date.now()) {
  const projectPath = project ? `${project.namespace.full_path}/${project.project.path}` : undefined;
  return {
    id: job.id,
    status: job.status,
    stage: job.stage,
    name: job.name,
    ref: job.ref,
    tag: job.tag,
    coverage: job.coverage,
    allow_failure: job.allow_failure,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    duration: durationOf(job.started_at, job.finished_at, now),
    user: user ? serializeUserBasic(user, externalUrl) : null,
    commit: { id: job.sha, short_id: job.sha.slice(0, 8) },
    pipeline: pipeline ? { id: pipeline.id, project_id: pipeline.project_id, ref: pipeline.ref, sha: pipeline.sha, status: pipeline.status } : null,
    web_url: projectPath === undefined ? null : `${externalUrl}/${projectPath}/-/jobs/${job.id}`,
    project: project
      ? {
          id: project.project.id,
          description: project.project.description,
          name: project.project.name,
          name_with_namespace: `${project.namespace.full_name} / ${project.project.name}`,
          path: project.project.path,
          path_with_namespace: projectPath,
          created_at: project.project.created_at,
        }
      : null,
  };
}

/** Whole seconds between start and finish (or now, while the job runs); null before it starts. */
function durationOf(startedAt: string | null, finishedAt: string | null, now: number): number | null {
  if (startedAt === null) return null;
  const end = finishedAt === null ? now : Date.parse(finishedAt);
  return Math.max(0, Math.round((end - Date.parse(startedAt)) / 1000));
}
