import { GantryError } from '../../../shared/errors.ts';
import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { NamespaceRecord, NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { PipelinesStore } from '../../../storage/types-ci.ts';
import type { CiJobsStore } from '../../../storage/types-ci-jobs.ts';
import type { DeploymentsStore } from '../../../storage/types-environments.ts';
import type { ReleaseLinksStore, ReleaseRecord, ReleasesStore } from '../../../storage/types-repository.ts';
import type { MergeRequestsStore } from '../../../storage/types-merge-requests.ts';
import type { NotesStore, NoteRecord } from '../../../storage/types-notes.ts';
import type { IssueRecord, IssuesStore } from '../../../storage/types-planning.ts';
import { issueAttributes, issueHookData, noteHookData, type HookIssue } from './hook-data-planning.ts';
import type { HookDeliveries } from './hook-deliveries.ts';
import type { HookEventRecorder } from './hook-events.ts';
import type { HookPayloads } from './hook-payloads.ts';
import { TRIGGERS, type HookTrigger } from './hook-payloads.ts';
import type { ProjectHooksService } from './project-hooks.ts';
import type { GroupHooksService } from './group-hooks.ts';
import type { HookTestRateLimit } from './test-rate-limit.ts';

/** GitLab's test triggers (ProjectHook.triggers' values), as `POST .../test/:trigger` names them. */
export const HOOK_TEST_TRIGGERS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'note_events', 'confidential_note_events', 'merge_requests_events',
  'job_events', 'pipeline_events', 'wiki_page_events', 'deployment_events', 'feature_flag_events', 'releases_events', 'emoji_events', 'resource_access_token_events',
] as const;
export type HookTestTrigger = (typeof HOOK_TEST_TRIGGERS)[number];

const ZERO_SHA = '0'.repeat(40);
/** Commits GitLab's sample push names (the default branch's newest three). */
const SAMPLE_PUSH_COMMITS = 3;

export interface HookTestDeps {
  projectHooks: Pick<ProjectHooksService, 'managed'>;
  groupHooks: Pick<GroupHooksService, 'managed'>;
  /** A group's own projects (a group hook's test call samples the first with commits). */
  projects: Pick<ProjectsStore, 'listByNamespaces'>;
  rateLimit: HookTestRateLimit;
  deliveries: Pick<HookDeliveries, 'sendNow'>;
  payloads: Pick<HookPayloads, 'build'>;
  events: Pick<HookEventRecorder, 'jobPayload' | 'pipelinePayload' | 'mergeRequestPayload' | 'mergeRequestNotePayload' | 'deploymentPayload' | 'releasePayload'>;
  issues: Pick<IssuesStore, 'list' | 'labelsOf' | 'assigneesOf'>;
  mergeRequests: Pick<MergeRequestsStore, 'list'>;
  notes: Pick<NotesStore, 'list'>;
  pipelines: Pick<PipelinesStore, 'list' | 'findById'>;
  jobs: Pick<CiJobsStore, 'list' | 'findByIds'>;
  deployments: Pick<DeploymentsStore, 'latestForProject'>;
  releases: Pick<ReleasesStore, 'listForProject'>;
  releaseLinks: Pick<ReleaseLinksStore, 'listForReleases'>;
  users: Pick<UsersStore, 'findByIds'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  externalUrl: string;
}

type Sample = { trigger: HookTrigger; payload: Record<string, unknown> };

/**
 * `POST /projects/:id/hooks/:hook_id/test/:trigger` (GitLab's TestHooks::ProjectService): GitLab's
 * sample of the event built from the project's real data, sent now to the hook (enabled or not),
 * logged as a delivery. Nothing to build from: `422` with GitLab's message; a receiver that does
 * not answer 2xx: `422` with its answer's body (or the failure). Five a minute per hook and user.
 */
export class HookTestService {
  constructor(private readonly deps: HookTestDeps) {}

  async test(projectRef: string, actor: UserRecord, hookId: number, trigger: HookTestTrigger): Promise<void> {
    const { project, hook } = await this.deps.projectHooks.managed(projectRef, actor, hookId);
    this.deps.rateLimit.take(hook.id, actor.id);
    const sample = await this.sample(project, actor, trigger);
    const attempt = await this.deps.deliveries.sendNow(hook, sample.trigger, sample.payload);
    if (!attempt.ok) throw failed(attempt.log.internal_error_message ?? attempt.log.response_body);
  }

  /**
   * `POST /groups/:id/hooks/:hook_id/test/:trigger` (GitLab's TestHooks::GroupService): the
   * project test call's sample, from the group's first project with commits.
   */
  async testGroup(groupRef: string, actor: UserRecord, hookId: number, trigger: HookTestTrigger): Promise<void> {
    const { group, hook } = await this.deps.groupHooks.managed(groupRef, actor, hookId);
    this.deps.rateLimit.take(hook.id, actor.id);
    const project = await this.firstNonEmptyProject(group);
    if (!project) throw failed('Ensure the group has a project with commits.');
    const sample = await this.sample(project, actor, trigger);
    const attempt = await this.deps.deliveries.sendNow(hook, sample.trigger, sample.payload);
    if (!attempt.ok) throw failed(attempt.log.internal_error_message ?? attempt.log.response_body);
  }

  /** The group's own projects by id, the first whose repository has a commit (GitLab's first_non_empty_project). */
  private async firstNonEmptyProject(group: NamespaceRecord): Promise<ProjectRecord | undefined> {
    const projects = (await this.deps.projects.listByNamespaces([group.id])).filter((project) => !project.pending_delete).sort((a, b) => a.id - b.id);
    for (const project of projects) {
      if ((await this.deps.repositories.exists(project.id)) && !(await this.deps.repositories.open(project.id).isEmpty())) return project;
    }
    return undefined;
  }

  private async sample(project: ProjectRecord, actor: UserRecord, trigger: HookTestTrigger): Promise<Sample> {
    switch (trigger) {
      case 'push_events':
      case 'tag_push_events':
        // GitLab's sample for both is a push of the default branch's newest commits.
        return { trigger: trigger === 'push_events' ? TRIGGERS.push : TRIGGERS.tag_push, payload: await this.push(project, actor) };
      case 'issues_events':
      case 'confidential_issues_events':
        return { trigger: trigger === 'issues_events' ? TRIGGERS.issue : TRIGGERS.confidential_issue, payload: await this.issue(project, actor) };
      case 'note_events':
      case 'confidential_note_events':
        return { trigger: trigger === 'note_events' ? TRIGGERS.note : TRIGGERS.confidential_note, payload: await this.note(project, actor) };
      case 'merge_requests_events': {
        const [first] = (await this.deps.mergeRequests.list({ projects: { projectIds: [project.id], visibleScope: null }, orderBy: 'created_at', sort: 'asc' }, { limit: 1, offset: 0 })).items;
        if (!first) throw failed('Ensure the project has merge requests.');
        return { trigger: TRIGGERS.merge_request, payload: await this.deps.events.mergeRequestPayload(project, actor, first, null) };
      }
      case 'job_events': {
        const [job] = (await this.deps.jobs.list({ projectId: project.id, types: ['build'], sort: 'asc' }, { limit: 1, offset: 0 })).items;
        const pipeline = job ? await this.deps.pipelines.findById(job.pipeline_id) : undefined;
        const payload = job && pipeline ? await this.deps.events.jobPayload(job, pipeline) : undefined;
        if (!payload) throw failed('Ensure the project has CI jobs.');
        return { trigger: TRIGGERS.job, payload };
      }
      case 'pipeline_events': {
        const [pipeline] = (await this.deps.pipelines.list({ projectId: project.id }, { limit: 1, offset: 0 })).items;
        const payload = pipeline ? await this.deps.events.pipelinePayload(pipeline) : undefined;
        if (!payload) throw failed('Ensure the project has CI pipelines.');
        return { trigger: TRIGGERS.pipeline, payload };
      }
      case 'releases_events':
        return { trigger: TRIGGERS.release, payload: await this.release(project) };
      case 'deployment_events':
        return { trigger: TRIGGERS.deployment, payload: await this.deployment(project) };
      default:
        throw failed('Testing not available for this hook');
    }
  }

  private async push(project: ProjectRecord, actor: UserRecord): Promise<Record<string, unknown>> {
    const empty = (): GantryError => failed('Ensure the project has at least one commit.');
    if (project.default_branch === null || !(await this.deps.repositories.exists(project.id))) throw empty();
    const repository = this.deps.repositories.open(project.id);
    const head = await repository.commit(`refs/heads/${project.default_branch}`).catch(() => null);
    if (!head) throw empty();
    let oldest = head;
    for (let step = 1; step < SAMPLE_PUSH_COMMITS && oldest.parent_ids[0]; step += 1) {
      const parent = await repository.commit(oldest.parent_ids[0]).catch(() => null);
      if (!parent) break;
      oldest = parent;
    }
    const before = oldest.id === head.id ? ZERO_SHA : oldest.id;
    const payload = await this.deps.payloads.build({ kind: 'push', push: { project_id: project.id, ref: `refs/heads/${project.default_branch}`, before, after: head.id, user_id: actor.id } });
    if (!payload) throw empty();
    return payload;
  }

  /** The project's latest release (by release date, then id), as created. */
  private async release(project: ProjectRecord): Promise<Record<string, unknown>> {
    const releases = await this.deps.releases.listForProject(project.id);
    const latest = releases.reduce<ReleaseRecord | undefined>((best, release) => (!best || newer(release, best) ? release : best), undefined);
    if (!latest) throw failed('Ensure the project has releases.');
    const repository = (await this.deps.repositories.exists(project.id)) ? this.deps.repositories.open(project.id) : undefined;
    const tag = repository ? ((await repository.tags()).find((entry) => entry.name === latest.tag_name) ?? null) : null;
    const links = (await this.deps.releaseLinks.listForReleases([latest.id])).get(latest.id) ?? [];
    return this.deps.events.releasePayload(project, latest, tag, links);
  }

  /** The project's newest deployment, with its job's status. */
  private async deployment(project: ProjectRecord): Promise<Record<string, unknown>> {
    const deployment = await this.deps.deployments.latestForProject(project.id);
    const [job] = deployment?.job_id != null ? await this.deps.jobs.findByIds([deployment.job_id]) : [];
    const pipeline = job ? await this.deps.pipelines.findById(job.pipeline_id) : undefined;
    const payload = job && pipeline ? await this.deps.events.deploymentPayload(job, pipeline) : undefined;
    if (!payload) throw failed('Ensure the project has deployments.');
    return payload;
  }

  private async firstIssue(project: ProjectRecord): Promise<IssueRecord | undefined> {
    const filter = { projects: { projectIds: [project.id], visibleScope: null }, confidentialAccess: null, orderBy: 'created_at', sort: 'asc' } as const;
    return (await this.deps.issues.list(filter, { limit: 1, offset: 0 })).items[0];
  }

  private async hookIssue(issue: IssueRecord): Promise<HookIssue> {
    const [labels, assigneeIds] = await Promise.all([this.deps.issues.labelsOf([issue.id]), this.deps.issues.assigneesOf([issue.id])]);
    const ids = assigneeIds.get(issue.id) ?? [];
    return { issue, labels: labels.get(issue.id) ?? [], assignees: ids.length ? await this.deps.users.findByIds(ids) : [] };
  }

  private async issue(project: ProjectRecord, actor: UserRecord): Promise<Record<string, unknown>> {
    const issue = await this.firstIssue(project);
    if (!issue) throw failed('Ensure the project has issues.');
    const payload = issueHookData(await this.target(project), actor, null, await this.hookIssue(issue));
    // GitLab's sample is the issue's hook data without an action or changes.
    delete (payload.object_attributes as Record<string, unknown>).action;
    return { ...payload, changes: {} };
  }

  /** The first note of the project's first issue, or else of its first merge request (GitLab takes the project's first note). */
  private async note(project: ProjectRecord, actor: UserRecord): Promise<Record<string, unknown>> {
    const issue = await this.firstIssue(project);
    if (issue) {
      const note = await this.firstNote('Issue', issue.id);
      if (note) return noteHookData(await this.target(project), actor, note, { type: 'Issue', attributes: issueAttributes(await this.target(project), await this.hookIssue(issue), null) }, note.internal || issue.confidential);
    }
    const [mergeRequest] = (await this.deps.mergeRequests.list({ projects: { projectIds: [project.id], visibleScope: null }, orderBy: 'created_at', sort: 'asc' }, { limit: 1, offset: 0 })).items;
    const note = mergeRequest ? await this.firstNote('MergeRequest', mergeRequest.id) : undefined;
    if (!mergeRequest || !note) throw failed('Ensure the project has notes.');
    return this.deps.events.mergeRequestNotePayload(project, actor, mergeRequest, note);
  }

  private async firstNote(noteableType: 'Issue' | 'MergeRequest', noteableId: number): Promise<NoteRecord | undefined> {
    return (await this.deps.notes.list({ noteableType, noteableId, includeInternal: true, orderBy: 'created_at', sort: 'asc' }, { limit: 1, offset: 0 })).items[0];
  }

  private async target(project: ProjectRecord) {
    return { project, namespace: await this.deps.namespaces.findById(project.namespace_id), externalUrl: this.deps.externalUrl };
  }
}

function newer(a: ReleaseRecord, b: ReleaseRecord): boolean {
  const [at, bt] = [a.released_at ?? a.created_at, b.released_at ?? b.created_at];
  return at === bt ? a.id > b.id : at > bt;
}

function failed(message: string): GantryError {
  return new GantryError('GANTRY_E_HOOK_TEST_FAILED', message);
}
