import type { CommitStatusView } from '../../../services/ci/pipelines/commit-statuses.ts';
import { jobWebUrl } from './jobs.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

/** GitLab's CommitStatus entity: an external status or a CI job of the commit's pipelines. */
export interface CommitStatusJson {
  id: number;
  sha: string;
  ref: string | null;
  status: string;
  name: string;
  /** External statuses: the URL given; jobs: the job's page. */
  target_url: string | null;
  description: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  allow_failure: boolean;
  coverage: number | null;
  pipeline_id: number;
  author: UserBasicJson | null;
}

export function serializeCommitStatus(view: CommitStatusView, externalUrl: string): CommitStatusJson {
  const { job } = view;
  return {
    id: job.id,
    sha: job.sha,
    ref: job.ref,
    status: job.status,
    name: job.name,
    target_url: job.type === 'generic' ? job.target_url : jobWebUrl(job, externalUrl, view.target.fullPath),
    description: job.description,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    allow_failure: job.allow_failure,
    coverage: job.coverage,
    pipeline_id: job.pipeline_id,
    author: view.author ? serializeUserBasic(view.author, externalUrl) : null,
  };
}
