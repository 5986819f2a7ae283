import type { PipelineRecord } from '../../../storage/types-ci.ts';
import type { UserRecord } from '../../../storage/types.ts';
import { serializeUserBasic, type UserBasicJson } from './user-basic.ts';

/** The pipeline of lists (GitLab's PipelineBasic). */
export interface PipelineBasicJson {
  id: number;
  iid: number;
  project_id: number;
  sha: string;
  ref: string;
  status: string;
  source: string;
  created_at: string;
  updated_at: string;
  web_url: string;
}

export interface DetailedStatusJson {
  icon: string;
  text: string;
  label: string;
  group: string;
  tooltip: string;
  has_details: boolean;
  details_path: string;
  illustration: null;
  favicon: string;
}

/** The single pipeline (GitLab's Pipeline entity). */
export interface PipelineJson extends PipelineBasicJson {
  before_sha: string;
  tag: boolean;
  yaml_errors: string | null;
  user: UserBasicJson | null;
  started_at: string | null;
  finished_at: string | null;
  committed_at: string | null;
  duration: number | null;
  queued_duration: number | null;
  coverage: string | null;
  detailed_status: DetailedStatusJson;
}

/** What serialising a pipeline needs besides its row. */
export interface PipelineSubject {
  pipeline: PipelineRecord;
  user: UserRecord | null;
  /** `group/project`. */
  projectPath: string;
}

const STATUS_TEXT: Record<string, { text: string; label: string }> = {
  created: { text: 'created', label: 'created' },
  waiting_for_resource: { text: 'waiting', label: 'waiting for resource' },
  preparing: { text: 'preparing', label: 'preparing' },
  pending: { text: 'pending', label: 'pending' },
  running: { text: 'running', label: 'running' },
  success: { text: 'passed', label: 'passed' },
  failed: { text: 'failed', label: 'failed' },
  canceled: { text: 'canceled', label: 'canceled' },
  skipped: { text: 'skipped', label: 'skipped' },
  manual: { text: 'manual', label: 'manual action' },
  scheduled: { text: 'delayed', label: 'delayed' },
};

function pipelineWebUrl(subject: Pick<PipelineSubject, 'pipeline' | 'projectPath'>, externalUrl: string): string {
  return `${externalUrl}/${subject.projectPath}/-/pipelines/${subject.pipeline.id}`;
}

export function serializePipelineBasic(subject: Pick<PipelineSubject, 'pipeline' | 'projectPath'>, externalUrl: string): PipelineBasicJson {
  const { pipeline } = subject;
  return {
    id: pipeline.id,
    iid: pipeline.iid,
    project_id: pipeline.project_id,
    sha: pipeline.sha,
    ref: pipeline.ref,
    status: pipeline.status,
    source: pipeline.source,
    created_at: pipeline.created_at,
    updated_at: pipeline.updated_at,
    web_url: pipelineWebUrl(subject, externalUrl),
  };
}

export function serializePipeline(subject: PipelineSubject, externalUrl: string): PipelineJson {
  const { pipeline } = subject;
  const started = pipeline.started_at === null ? null : Date.parse(pipeline.started_at);
  return {
    ...serializePipelineBasic(subject, externalUrl),
    before_sha: pipeline.before_sha,
    tag: pipeline.tag,
    yaml_errors: pipeline.yaml_errors,
    user: subject.user ? serializeUserBasic(subject.user, externalUrl) : null,
    started_at: pipeline.started_at,
    finished_at: pipeline.finished_at,
    committed_at: pipeline.committed_at,
    duration: pipeline.duration,
    queued_duration: started === null ? null : Math.max(0, (started - Date.parse(pipeline.created_at)) / 1000),
    coverage: pipeline.coverage,
    detailed_status: detailedStatus(subject, externalUrl),
  };
}

function detailedStatus(subject: Pick<PipelineSubject, 'pipeline' | 'projectPath'>, externalUrl: string): DetailedStatusJson {
  const status = subject.pipeline.status;
  const words = STATUS_TEXT[status] ?? { text: status, label: status };
  const group = status === 'success' && subject.pipeline.has_warnings ? 'success-with-warnings' : status;
  const path = new URL(pipelineWebUrl(subject, externalUrl)).pathname;
  return {
    icon: `status_${status === 'scheduled' ? 'scheduled' : status}`,
    text: group === 'success-with-warnings' ? 'passed' : words.text,
    label: group === 'success-with-warnings' ? 'passed with warnings' : words.label,
    group,
    tooltip: group === 'success-with-warnings' ? 'passed with warnings' : words.label,
    has_details: true,
    details_path: path,
    illustration: null,
    favicon: `/assets/ci_favicons/favicon_status_${status}.png`,
  };
}
