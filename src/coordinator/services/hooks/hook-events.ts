import type { Logger } from '../../../shared/logger.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { GitCommit, RepositoryManager } from '../../../storage/git/types.ts';
import type { PipelineRecord, PipelinesStore } from '../../../storage/types-ci.ts';
import type { CiJobsStore, JobRecord } from '../../../storage/types-ci-jobs.ts';
import type { NoteRecord, NotesStore } from '../../../storage/types-notes.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { LabelRecord, LabelsStore } from '../../../storage/types-planning.ts';
import type { RunnersStore } from '../../../storage/types-runners.ts';
import type { ProcessedEvent } from '../ci/pipelines/processing.ts';
import type { GitTag } from '../../../storage/git/types.ts';
import type { ReleaseLinkRecord, ReleaseRecord } from '../../../storage/types-repository.ts';
import type { IssueObserver, IssueSaved, NoteWritten } from '../planning/issue-observers.ts';
import type { IssueView } from '../planning/issue-views.ts';
import type { MergeRequestMerged, MergeRequestObserver, MergeRequestRefreshed, MergeRequestSaved, MergeRequestSnapshot } from '../planning/merge-requests/observers.ts';
import type { MergeRequestNoteObserver, MergeRequestNoteWritten } from '../planning/noteables.ts';
import type { ReleaseObserver, ReleaseView } from '../repository/releases.ts';
import { releaseHookData } from './hook-data-release.ts';
import type { HookProject } from './hook-data-common.ts';
import { DEPLOYMENT_HOOK_STATUSES, deploymentHookData, jobHookData, pipelineHookData, PIPELINE_HOOK_MAX_BUILDS } from './hook-data-ci.ts';
import type { DeploymentsStore, EnvironmentRecord, EnvironmentsStore } from '../../../storage/types-environments.ts';
import { needingRebase } from '../planning/merge-requests/rebase-status.ts';
import { failingCiChecks } from '../planning/merge-requests/ci-merge-check.ts';
import { issueAttributes, issueHookData, mergeRequestAction, mergeRequestAttributes, mergeRequestHookData, noteHookData, type HookAction, type HookIssue, type HookMergeRequest } from './hook-data-planning.ts';
import type { HookDeliveries } from './hook-deliveries.ts';
import { TRIGGERS } from './hook-payloads.ts';

export interface HookEventRecorderDeps {
  deliveries: Pick<HookDeliveries, 'recordEvent'>;
  projects: Pick<ProjectsStore, 'findById'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  users: Pick<UsersStore, 'findById' | 'findByIds'>;
  labels: Pick<LabelsStore, 'findById'>;
  mergeRequests: Pick<MergeRequestsStore, 'labelsOf' | 'assigneesOf' | 'reviewersOf'>;
  notes: Pick<NotesStore, 'unresolvedDiscussionCounts'>;
  jobs: Pick<CiJobsStore, 'findByIds' | 'list'>;
  runners: Pick<RunnersStore, 'findByIds'>;
  deployments: Pick<DeploymentsStore, 'findByJob'>;
  environments: Pick<EnvironmentsStore, 'findInProject' | 'findByName'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  pipelines: Pick<PipelinesStore, 'findById' | 'latestFor'>;
  externalUrl: string;
  logger: Logger;
}

/**
 * Hears what happens to issues, notes, merge requests, pipelines and jobs (as an observer of
 * the planning services and of pipeline processing: additive subscriptions) and queues GitLab's
 * hook payload of each for the project's subscribed hooks. Queuing is a few statements, in the
 * request (or the pipeline event's task) after the change is stored; no receiver is waited for.
 * A failure to queue is logged and never fails the change that caused it.
 */
export class HookEventRecorder implements IssueObserver, MergeRequestObserver, MergeRequestNoteObserver, ReleaseObserver {
  /** Pipeline and job events are heard after their commit, in commit order; this chain keeps that order in the queue. */
  private ciChain: Promise<void> = Promise.resolve();

  constructor(private readonly deps: HookEventRecorderDeps) {}

  async issueSaved(change: IssueSaved): Promise<void> {
    const flag = change.after.issue.confidential ? 'confidential_issues_events' : 'issues_events';
    const trigger = change.after.issue.confidential ? TRIGGERS.confidential_issue : TRIGGERS.issue;
    await this.guard('issue', () =>
      this.deps.deliveries.recordEvent(change.project.id, flag, trigger, async () => {
        const target = await this.target(change.project);
        const labels = await this.labelsById([...(change.before?.labelIds ?? []), ...change.after.labelIds]);
        return issueHookData(target, change.actor, change.before ? hookIssue(change.before, labels) : null, hookIssue(change.after, labels));
      }));
  }

  async noteWritten(written: NoteWritten): Promise<void> {
    await this.recordIssueNote(written, 'create');
  }

  async noteUpdated(written: NoteWritten): Promise<void> {
    await this.recordIssueNote(written, 'update');
  }

  private async recordIssueNote(written: NoteWritten, action: 'create' | 'update'): Promise<void> {
    const confidential = written.note.internal || written.issue.issue.confidential;
    await this.guard('note', () =>
      this.deps.deliveries.recordEvent(written.project.id, confidential ? 'confidential_note_events' : 'note_events', confidential ? TRIGGERS.confidential_note : TRIGGERS.note, async () => {
        const target = await this.target(written.project);
        const labels = await this.labelsById(written.issue.labelIds);
        const attributes = issueAttributes(target, hookIssue(written.issue, labels), null);
        return noteHookData(target, written.actor, written.note, { type: 'Issue', attributes }, confidential, action);
      }));
  }

  async mergeRequestNoteWritten(written: MergeRequestNoteWritten): Promise<void> {
    await this.recordMergeRequestNote(written, 'create');
  }

  async mergeRequestNoteUpdated(written: MergeRequestNoteWritten): Promise<void> {
    await this.recordMergeRequestNote(written, 'update');
  }

  private async recordMergeRequestNote(written: MergeRequestNoteWritten, action: 'create' | 'update'): Promise<void> {
    const confidential = written.note.internal;
    await this.guard('note', () =>
      this.deps.deliveries.recordEvent(written.project.id, confidential ? 'confidential_note_events' : 'note_events', confidential ? TRIGGERS.confidential_note : TRIGGERS.note, () =>
        this.mergeRequestNotePayload(written.project, written.actor, written.mergeRequest, written.note, action)));
  }

  async mergeRequestSaved(change: MergeRequestSaved): Promise<void> {
    await this.recordMergeRequest(change.project, change.actor, change.before, change.after, mergeRequestAction(change.before?.record ?? null, change.after.record));
  }

  async mergeRequestMerged(merged: MergeRequestMerged): Promise<void> {
    await this.recordMergeRequest(merged.project, merged.actor, null, { record: merged.mergeRequest, labels: [], assigneeIds: [], reviewerIds: [] }, 'merge');
  }

  /** A push to an existing request's source branch: GitLab's `update` with the new commits. */
  async mergeRequestRefreshed(refreshed: MergeRequestRefreshed): Promise<void> {
    if (!refreshed.sourceMoved || refreshed.addedCommits === undefined || refreshed.actor === null) return;
    await this.recordMergeRequest(refreshed.project, refreshed.actor, null, { record: refreshed.mergeRequest, labels: [], assigneeIds: [], reviewerIds: [] }, 'update');
  }

  async releaseChanged(change: { action: 'create' | 'update' | 'delete'; project: ProjectRecord; view: ReleaseView }): Promise<void> {
    const { release, tag, links } = change.view;
    await this.guard('release', () =>
      this.deps.deliveries.recordEvent(change.project.id, 'releases_events', TRIGGERS.release, async () => releaseHookData(await this.target(change.project), release, tag, links, change.action)));
  }

  /** For pipeline processing's `afterCommit` (synchronous): queues the pipeline and job hooks in commit order. */
  pipelineProcessed(processed: ProcessedEvent): void {
    this.ciChain = this.ciChain.then(() => this.guard('pipeline', () => this.recordCi(processed)));
  }

  /** Resolves once the pipeline and job events heard so far are queued (tests, shutdown). */
  settled(): Promise<void> {
    return this.ciChain;
  }

  private async recordCi(processed: ProcessedEvent): Promise<void> {
    const { pipeline } = processed;
    const statusById = new Map(processed.result.jobs.map((job) => [job.id, job.status]));
    const changedJobIds = processed.result.changes.flatMap((change) => {
      if (change.kind === 'update') return change.patch.status !== undefined ? [change.jobId] : [];
      return [];
    });
    const jobIds = [...new Set([...changedJobIds, ...processed.createdJobIds])];
    const withStatus = <T extends { id: number; status: string }>(job: T): T => ({ ...job, status: statusById.get(job.id) ?? job.status });
    let commit: Promise<GitCommit | null> | undefined;
    const commitOnce = (project: ProjectRecord) => (commit ??= this.commit(project, pipeline.sha));
    // A new pipeline's jobs as inserted come first (GitLab's job hook on creation), then what processing made of them.
    const inserted = new Map((processed.insertedJobs ?? []).map((job) => [job.id, job.status]));
    const wanted = [...new Set([...inserted.keys(), ...jobIds])];
    const found = wanted.length > 0 ? (await this.deps.jobs.findByIds(wanted)).sort((a, b) => a.id - b.id) : [];
    const builds = found.filter((job) => job.type === 'build');
    for (const job of builds) {
      const status = inserted.get(job.id);
      if (status !== undefined) await this.deps.deliveries.recordEvent(pipeline.project_id, 'job_events', TRIGGERS.job, () => this.jobPayload({ ...job, status }, pipeline, commitOnce));
    }
    for (const job of builds.filter((build) => jobIds.includes(build.id)).map(withStatus)) {
      await this.deps.deliveries.recordEvent(pipeline.project_id, 'job_events', TRIGGERS.job, () => this.jobPayload(job, pipeline, commitOnce));
      if (job.environment && DEPLOYMENT_HOOK_STATUSES.has(job.status) && changedJobIds.includes(job.id)) await this.recordDeployment(job, pipeline, commitOnce);
    }
    // Bridges send no job hook, but a bridge's deployment sends its deployment hook as a build's does.
    for (const bridge of found.filter((job) => job.type === 'bridge' && job.environment !== null && jobIds.includes(job.id)).map(withStatus)) {
      if (DEPLOYMENT_HOOK_STATUSES.has(bridge.status) && changedJobIds.includes(bridge.id)) await this.recordDeployment(bridge, pipeline, commitOnce);
    }
    if (!processed.result.pipelineStatusChanged) return;
    await this.deps.deliveries.recordEvent(pipeline.project_id, 'pipeline_events', TRIGGERS.pipeline, () => this.pipelinePayload(pipeline, withStatus, commitOnce));
  }

  /** A deployment job started or finished: GitLab's deployment event, when the job has a deployment record. */
  private async recordDeployment(job: JobRecord, pipeline: PipelineRecord, commitOf: (project: ProjectRecord) => Promise<GitCommit | null>): Promise<void> {
    await this.deps.deliveries.recordEvent(pipeline.project_id, 'deployment_events', TRIGGERS.deployment, () => this.deploymentPayload(job, pipeline, commitOf));
  }

  /** A deployment hook's payload for the job's deployment (undefined: none, or the project is gone). */
  async deploymentPayload(job: JobRecord, pipeline: PipelineRecord, commitOf: (project: ProjectRecord) => Promise<GitCommit | null> = (project) => this.commit(project, pipeline.sha)): Promise<Record<string, unknown> | undefined> {
    const deployment = await this.deps.deployments.findByJob(job.id);
    const project = deployment ? await this.deps.projects.findById(pipeline.project_id) : undefined;
    if (!deployment || !project) return undefined;
    const environment = await this.deps.environments.findInProject(project.id, deployment.environment_id);
    const user = job.user_id === null ? undefined : await this.deps.users.findById(job.user_id);
    return deploymentHookData(await this.target(project), { deployment, job, environment, user, commit: await commitOf(project) }, new Date().toISOString());
  }

  /** A release hook's payload for the release as stored (`action` create, as GitLab's test call sends it). */
  async releasePayload(project: ProjectRecord, release: ReleaseRecord, tag: GitTag | null, links: readonly ReleaseLinkRecord[]): Promise<Record<string, unknown>> {
    return releaseHookData(await this.target(project), release, tag, links, 'create');
  }

  /** A job hook's payload (undefined: the project is gone). */
  async jobPayload(job: JobRecord, pipeline: PipelineRecord, commitOf: (project: ProjectRecord) => Promise<GitCommit | null> = (project) => this.commit(project, pipeline.sha)): Promise<Record<string, unknown> | undefined> {
    const project = await this.deps.projects.findById(pipeline.project_id);
    if (!project) return undefined;
    const [user] = job.user_id === null ? [] : await this.deps.users.findByIds([job.user_id]);
    const [runner] = job.runner_id === null ? [] : await this.deps.runners.findByIds([job.runner_id]);
    const environment = job.environment === null ? undefined : await this.deps.environments.findByName(project.id, job.environment);
    return jobHookData(await this.target(project), { job, pipeline, user, runner, environment, commit: await commitOf(project) });
  }

  /** A pipeline hook's payload with its latest jobs (`withStatus` gives each job its status as of the event). */
  async pipelinePayload(
    pipeline: PipelineRecord,
    withStatus: (job: JobRecord) => JobRecord = (job) => job,
    commitOf: (project: ProjectRecord) => Promise<GitCommit | null> = (project) => this.commit(project, pipeline.sha),
  ): Promise<Record<string, unknown> | undefined> {
    const project = await this.deps.projects.findById(pipeline.project_id);
    if (!project) return undefined;
    const { items } = await this.deps.jobs.list({ pipelineId: pipeline.id, sort: 'asc' }, { limit: PIPELINE_HOOK_MAX_BUILDS, offset: 0 });
    const jobs = items.map(withStatus);
    const userIds = [...new Set([pipeline.user_id, ...jobs.map((job) => job.user_id)].filter((id): id is number => id !== null))];
    const runnerIds = [...new Set(jobs.flatMap((job) => (job.runner_id === null ? [] : [job.runner_id])))];
    const users = new Map((await this.deps.users.findByIds(userIds)).map((user) => [user.id, user]));
    const runners = new Map((runnerIds.length ? await this.deps.runners.findByIds(runnerIds) : []).map((runner) => [runner.id, runner]));
    const environments = new Map<string, EnvironmentRecord>();
    for (const name of new Set(jobs.flatMap((job) => (job.environment === null ? [] : [job.environment])))) {
      const environment = await this.deps.environments.findByName(project.id, name);
      if (environment) environments.set(name, environment);
    }
    return pipelineHookData(await this.target(project), { pipeline, jobs, users, runners, environments, commit: await commitOf(project) });
  }

  /** A merge request hook's payload for the request as stored (`action` null: none, as GitLab's test call sends). */
  async mergeRequestPayload(project: ProjectRecord, actor: UserRecord, record: MergeRequestRecord, action: HookAction | null): Promise<Record<string, unknown>> {
    const target = await this.target(project);
    return mergeRequestHookData(target, await this.sourceOf(record, target), actor, null, await this.loadMergeRequest(record, project), action);
  }

  /** A note hook's payload for a note on a merge request. */
  async mergeRequestNotePayload(project: ProjectRecord, actor: UserRecord, record: MergeRequestRecord, note: NoteRecord, action: 'create' | 'update' = 'create'): Promise<Record<string, unknown>> {
    const target = await this.target(project);
    const attributes = mergeRequestAttributes(target, await this.loadMergeRequest(record, project), null, await this.sourceOf(record, target));
    return noteHookData(target, actor, note, { type: 'MergeRequest', attributes }, note.internal, action);
  }

  private async recordMergeRequest(project: ProjectRecord, actor: UserRecord, before: MergeRequestSnapshot | null, after: MergeRequestSnapshot, action: HookAction): Promise<void> {
    await this.guard('merge request', () =>
      this.deps.deliveries.recordEvent(project.id, 'merge_requests_events', TRIGGERS.merge_request, async () => {
        const target = await this.target(project);
        const source = await this.sourceOf(after.record, target);
        // A merge or a push names the request as stored; a save gives its relations before and after.
        const current = action === 'merge' || before === null && action === 'update' ? await this.loadMergeRequest(after.record, project) : await this.fromSnapshot(after, project);
        const previous = before ? await this.fromSnapshot(before, project) : null;
        return mergeRequestHookData(target, source, actor, previous, current, action);
      }));
  }

  /** The request's relations by id; `project` is its target, whose setting says whether its unresolved threads block it. */
  private async fromSnapshot(snapshot: MergeRequestSnapshot, project: ProjectRecord): Promise<HookMergeRequest> {
    const [users, unresolved, rebaseNeeded, ciChecks] = await Promise.all([
      this.usersById([...snapshot.assigneeIds, ...snapshot.reviewerIds]),
      project.only_allow_merge_if_all_discussions_are_resolved ? this.deps.notes.unresolvedDiscussionCounts([snapshot.record.id]) : Promise.resolve(new Map<number, number>()),
      needingRebase(this.deps.repositories, new Map([[project.id, project]]), [snapshot.record]),
      failingCiChecks(this.deps.pipelines, new Map([[project.id, project]]), [snapshot.record]),
    ]);
    return {
      record: snapshot.record,
      labels: snapshot.labels,
      assignees: snapshot.assigneeIds.flatMap((id) => users.get(id) ?? []),
      reviewers: snapshot.reviewerIds.flatMap((id) => users.get(id) ?? []),
      blockingDiscussionsResolved: (unresolved.get(snapshot.record.id) ?? 0) === 0,
      needsRebase: rebaseNeeded.has(snapshot.record.id),
      ciCheck: ciChecks.get(snapshot.record.id) ?? 'passed',
    };
  }

  private async loadMergeRequest(record: MergeRequestRecord, project: ProjectRecord): Promise<HookMergeRequest> {
    const [labels, assignees, reviewers] = await Promise.all([
      this.deps.mergeRequests.labelsOf([record.id]), this.deps.mergeRequests.assigneesOf([record.id]), this.deps.mergeRequests.reviewersOf([record.id]),
    ]);
    return this.fromSnapshot({ record, labels: labels.get(record.id) ?? [], assigneeIds: assignees.get(record.id) ?? [], reviewerIds: reviewers.get(record.id) ?? [] }, project);
  }

  private async sourceOf(record: MergeRequestRecord, target: HookProject): Promise<HookProject | null> {
    if (record.source_project_id === null) return null;
    if (record.source_project_id === target.project.id) return target;
    const project = await this.deps.projects.findById(record.source_project_id);
    return project ? this.target(project) : null;
  }

  private async target(project: ProjectRecord): Promise<HookProject> {
    return { project, namespace: await this.deps.namespaces.findById(project.namespace_id), externalUrl: this.deps.externalUrl };
  }

  private async commit(project: ProjectRecord, sha: string) {
    if (!(await this.deps.repositories.exists(project.id))) return null;
    return this.deps.repositories.open(project.id).commit(sha).catch(() => null);
  }

  private async labelsById(ids: readonly number[]): Promise<Map<number, LabelRecord>> {
    const labels = await Promise.all([...new Set(ids)].map((id) => this.deps.labels.findById(id)));
    return new Map(labels.flatMap((label) => (label ? [[label.id, label] as const] : [])));
  }

  private async usersById(ids: readonly number[]): Promise<Map<number, UserRecord>> {
    if (ids.length === 0) return new Map();
    return new Map((await this.deps.users.findByIds([...new Set(ids)])).map((user) => [user.id, user]));
  }

  private async guard(what: string, record: () => Promise<void>): Promise<void> {
    try {
      await record();
    } catch (error) {
      this.deps.logger.warn({ err: error }, `webhooks: queuing the ${what} event failed`);
    }
  }
}

function hookIssue(view: IssueView, labels: ReadonlyMap<number, LabelRecord>): HookIssue {
  return { issue: view.issue, labels: view.labelIds.flatMap((id) => labels.get(id) ?? []), assignees: view.assignees };
}
