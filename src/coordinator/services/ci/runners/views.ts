import type { NamespaceRecord, ProjectRecord } from '../../../../storage/types.ts';
import type { RunnerManagerRecord, RunnerRecord, RunnerType } from '../../../../storage/types-runners.ts';
import type { JobRecord } from '../../../../storage/types-ci-jobs.ts';
import type { JobStatus } from '../../../../storage/types-ci.ts';
import type { PipelineRecord } from '../../../../storage/types-ci.ts';
import type { UserRecord } from '../../../../storage/types.ts';
import type { RunnerManagerStatus } from './manager-heartbeats.ts';
import type { RunnerStatus } from './rules.ts';

/** A runner as lists show it, with its status at the time of the request. */
export interface RunnerView {
  runner: RunnerRecord;
  online: boolean;
  status: RunnerStatus;
}

export interface ProjectWithNamespace {
  project: ProjectRecord;
  namespace: NamespaceRecord;
}

/** `GET /runners/:id`: the runner with the projects (those the caller may know of) and groups it serves. */
export interface RunnerDetailView extends RunnerView {
  projects: ProjectWithNamespace[];
  groups: NamespaceRecord[];
}

/** One job of `GET /runners/:id/jobs`, with what the job list shows about it. */
export interface RunnerJobView {
  job: JobRecord;
  project: ProjectWithNamespace | undefined;
  pipeline: PipelineRecord | undefined;
  user: UserRecord | undefined;
}

/** Runner-list filters as GitLab 13 takes them (`scope` is the older spelling of type and status). */
export type RunnerStatusFilter = 'active' | 'paused' | 'online' | 'offline' | 'not_connected';
export type RunnerLegacyType = 'specific' | 'shared';

export interface RunnerFilter {
  scope?: RunnerStatusFilter | RunnerLegacyType | RunnerType;
  type?: RunnerType;
  status?: RunnerStatusFilter;
  tagList?: readonly string[];
}

export interface RunnerJobsFilter {
  status?: JobStatus;
}

/** One host of `GET /runners/:id/managers`, with its status at the time of the request. */
export interface RunnerManagerView {
  manager: RunnerManagerRecord;
  status: RunnerManagerStatus;
}
