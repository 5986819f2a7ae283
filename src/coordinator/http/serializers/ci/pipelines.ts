import type { PipelineRecord, PipelineStatus } from '../../../../storage/types-ci.ts';
import type { PipelineView } from '../../../services/ci/pipelines/pipeline-views.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';

/** Where a pipeline's project is: `<external>/<full path>`. */
export interface PipelineUrlBase {
  externalUrl: string;
  projectFullPath: string;
}

/** GitLab's PipelineBasic: list items, a job's `pipeline`, a bridge's `downstream_pipeline`. */
export interface PipelineBasicJson {
  id: number;
  iid: number;
  project_id: number;
  sha: string;
  ref: string;
  status: PipelineStatus;
  source: string;
  created_at: string;
  updated_at: string;
  web_url: string;
}

/** GitLab's DetailedStatusEntity for a pipeline (no action: pipelines have none). */
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

export interface PipelineJson extends PipelineBasicJson {
  /** `workflow:name` (GitLab 16.x's detail shows it; null without one). */
  name: string | null;
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

/** `<external>/<full path>/-/pipelines/<id>` */
export function pipelineWebUrl(pipeline: Pick<PipelineRecord, 'id'>, base: PipelineUrlBase): string {
  return `${base.externalUrl}/${base.projectFullPath}/-/pipelines/${pipeline.id}`;
}

export function serializePipelineBasic(pipeline: PipelineRecord, base: PipelineUrlBase): PipelineBasicJson {
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
    web_url: pipelineWebUrl(pipeline, base),
  };
}

/** The single pipeline (GET, retry, cancel, create). */
export function serializePipeline(view: PipelineView, base: PipelineUrlBase): PipelineJson {
  const { pipeline } = view;
  return {
    ...serializePipelineBasic(pipeline, base),
    name: pipeline.name,
    before_sha: pipeline.before_sha,
    tag: pipeline.tag,
    yaml_errors: pipeline.yaml_errors,
    user: view.user ? serializeUserBasic(view.user, base.externalUrl) : null,
    started_at: pipeline.started_at,
    finished_at: pipeline.finished_at,
    committed_at: pipeline.committed_at,
    duration: pipeline.duration,
    queued_duration: queuedDuration(pipeline),
    coverage: formatCoverage(pipeline.coverage),
    detailed_status: pipelineDetailedStatus(pipeline, base),
  };
}

/** Seconds from creation to start (GitLab answers null before the start and for 0). */
function queuedDuration(pipeline: PipelineRecord): number | null {
  if (!pipeline.started_at) return null;
  const seconds = Math.trunc((Date.parse(pipeline.started_at) - Date.parse(pipeline.created_at)) / 1000);
  return seconds > 0 ? seconds : null;
}

/** Coverage as GitLab's presenter prints it: two decimals (`"98.29"`). */
function formatCoverage(coverage: string | null): string | null {
  if (coverage === null || coverage.trim() === '') return null;
  const value = Number(coverage);
  return Number.isFinite(value) ? value.toFixed(2) : null;
}

interface StatusLook {
  icon: string;
  text: string;
  label: string;
  group: string;
  favicon: string;
}

/** Gitlab::Ci::Status core statuses, as their text, label, icon and favicon read. */
const CORE_STATUS: Record<PipelineStatus, StatusLook> = {
  created: look('created', 'created', 'created'),
  // Gitlab::Ci::Status::WaitingForResource: the pending icon under its own group.
  waiting_for_resource: { ...look('pending', 'waiting', 'waiting for resource'), group: 'waiting-for-resource' },
  pending: look('pending', 'pending', 'pending'),
  running: look('running', 'running', 'running'),
  success: look('success', 'passed', 'passed'),
  failed: look('failed', 'failed', 'failed'),
  canceled: look('canceled', 'canceled', 'canceled'),
  // Gitlab::Ci::Status::Canceling shows the canceled icon under its own group.
  canceling: { ...look('canceled', 'canceling', 'canceling'), group: 'canceling' },
  skipped: look('skipped', 'skipped', 'skipped'),
  // The pipeline factory's extended statuses: Pipeline::Blocked and Pipeline::Delayed.
  manual: look('manual', 'blocked', 'waiting for manual action'),
  scheduled: look('scheduled', 'delayed', 'waiting for delayed job'),
};

function look(status: string, text: string, label: string): StatusLook {
  return { icon: `status_${status}`, text, label, group: status, favicon: `favicon_status_${status}` };
}

/**
 * `detailed_status` as GitLab computes it from the status, with SuccessWarning ("passed with
 * warnings") when a successful pipeline has allowed failures. Paths are relative to the
 * host, with the external URL's own path in front (GitLab's relative URL root).
 */
export function pipelineDetailedStatus(pipeline: Pick<PipelineRecord, 'id' | 'status' | 'has_warnings'>, base: PipelineUrlBase): DetailedStatusJson {
  const core = CORE_STATUS[pipeline.status];
  const status = pipeline.status === 'success' && pipeline.has_warnings ? { ...core, icon: 'status_warning', label: 'passed with warnings', group: 'success_with_warnings' } : core;
  const root = new URL(base.externalUrl).pathname.replace(/\/+$/, '');
  return {
    icon: status.icon,
    text: status.text,
    label: status.label,
    group: status.group,
    tooltip: status.label,
    // Whoever is shown a pipeline may read it.
    has_details: true,
    details_path: `${root}/${base.projectFullPath}/-/pipelines/${pipeline.id}`,
    illustration: null,
    favicon: `${root}/assets/ci_favicons/${status.favicon}.png`,
  };
}
