import type { AccessLevel, NamespaceRecord, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { ProtectionLevel } from '../../../storage/types-repository.ts';
import type { EnvironmentRecord } from '../../../storage/types-environments.ts';
import { DEVELOPER, GUEST, MAINTAINER, OWNER, PermissionsBase, readableWithoutMembership, REPORTER, type Actor, type ActorProjectAccess } from './permissions-base.ts';

export * from './permissions-base.ts';

/**
 * The one place that decides who may see and do what. Handlers ask it; they never compare
 * access levels or visibilities themselves. The base holds levels, visibility and the
 * project, group and user rules; this adds the repository, CI and runner areas.
 */
export class Permissions extends PermissionsBase {
  // repository area -------------------------------------------------------------------------
  // Who may do what to a project's code and its settings: protection levels of protected
  // branches and tags, Maintainer-only settings, releases, deploy keys.

  /**
   * Whether the actor may write a ref guarded at `level` (undefined: the ref is unprotected,
   * so write access decides; 0: no one; 30: Developers and up; 40: Maintainers and up).
   * Administrators always may.
   */
  async canWriteAtProtectionLevel(project: ProjectRecord, actor: Actor, level: ProtectionLevel | undefined): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (!(await this.canWriteRepository(project, actor))) return false;
    if (level === undefined) return true;
    if (level === 0) return false;
    return this.projectLevelAtLeast(project, actor, level === 30 ? DEVELOPER : MAINTAINER);
  }

  /** The level a protected tag needs to be deleted: Maintainers. */
  protectedTagDeletionLevel(): ProtectionLevel {
    return 40;
  }

  /** The deprecated `branches/:branch/protect` flags: Developers when allowed, else Maintainers. */
  protectionLevelAllowingDevelopers(developersAllowed: boolean): ProtectionLevel {
    return developersAllowed ? 30 : 40;
  }

  /** Maintainers manage a repository's settings: protected branches and tags, deploy keys. */
  async canManageRepositorySettings(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, MAINTAINER);
  }

  /** Maintainers delete releases (their tags stay). */
  async canDeleteRelease(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, MAINTAINER);
  }

  /** The instance-wide list of deploy keys is for administrators. */
  canListAllDeployKeys(actor: UserRecord): boolean {
    return actor.is_admin;
  }

  /** A deploy key other projects use may join another one when the caller can access one of them (administrators: any). */
  async canReuseDeployKey(projectsUsingKey: readonly ProjectRecord[], actor: UserRecord): Promise<boolean> {
    if (actor.is_admin) return true;
    for (const project of projectsUsingKey) {
      if (await this.projectLevelAtLeast(project, actor, GUEST)) return true;
    }
    return false;
  }
  // end of repository area ------------------------------------------------------------------

  // pipelines area (api/pipelines.ts, services/pipelines/*) ----------------------------------
  // GitLab's ProjectPolicy and Ci::PipelinePolicy: read_pipeline, read_build, update_pipeline,
  // cancel_pipeline, destroy_pipeline and read_pipeline_variable.

  /**
   * `read_pipeline`: Reporters and up; whoever may read a public (or, signed in and not
   * external, an internal) project without membership; Guests only with public pipelines.
   */
  async canReadPipelines(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (actor?.is_admin) return true;
    if (readableWithoutMembership(project.visibility, actor)) return true;
    if (await this.projectLevelAtLeast(project, actor, REPORTER)) return true;
    return project.public_jobs && (await this.projectLevelAtLeast(project, actor, GUEST));
  }

  /**
   * `read_build` (jobs of pipelines, bridges, traces): Reporters and up; with public pipelines
   * (`public_jobs`) whoever reads the project. Nobody while the project's CI is disabled.
   */
  async canReadJobs(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!project.jobs_enabled) return false;
    if (actor?.is_admin) return true;
    if (await this.projectLevelAtLeast(project, actor, REPORTER)) return true;
    return project.public_jobs && (await this.canReadProject(project, actor));
  }

  /**
   * `update_pipeline` / `cancel_pipeline` (retry, cancel): Developers and up of an active
   * project, when they may also update the pipeline's ref (`refWritable`: push or merge to a
   * protected branch, create a protected tag; the protected-ref rules decide it).
   */
  async canUpdatePipeline(project: ProjectRecord, actor: Actor, refWritable: boolean): Promise<boolean> {
    if (project.archived || !project.jobs_enabled) return false;
    if (!(await this.projectLevelAtLeast(project, actor, DEVELOPER))) return false;
    return refWritable;
  }

  /** `destroy_pipeline`: Owners (administrators too). */
  async canDeletePipeline(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, OWNER);
  }

  /** `read_pipeline_variable`: Maintainers, or the Developer who ran the pipeline. */
  async canReadPipelineVariables(project: ProjectRecord, actor: Actor, pipeline: { user_id: number | null }): Promise<boolean> {
    if (await this.projectLevelAtLeast(project, actor, MAINTAINER)) return true;
    return actor !== null && pipeline.user_id === actor.id && (await this.projectLevelAtLeast(project, actor, DEVELOPER));
  }
  // end of pipelines area --------------------------------------------------------------------

  // ---- CI settings area (variables, triggers, pipeline schedules, environments) ------------
  // Maintainers administer builds (variables, triggers); Reporters read schedules and
  // environments; Developers create schedules and manage environments. Pipeline schedules
  // follow current GitLab's Ci::PipelineSchedulePolicy: a schedule runs as its owner, so only
  // the owner edits it (a Maintainer takes it over first), and nobody plays, creates or edits
  // one for a ref they may not update (`refWritable`: push or merge to a protected branch,
  // create a protected tag).

  /** Project CI variables and pipeline triggers (`admin_build`): Maintainer and up. */
  async canManageProjectCiSettings(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, MAINTAINER);
  }

  /** Group CI variables: Maintainers and Owners of the group (or an ancestor). */
  async canManageGroupCiVariables(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.groupLevelAtLeast(group, actor, MAINTAINER);
  }

  /** A trigger's full token shows to its owner; a trigger nobody owns (legacy) shows it to whoever manages triggers. */
  seesTriggerToken(trigger: { owner_id: number | null }, actor: UserRecord): boolean {
    return trigger.owner_id === null || trigger.owner_id === actor.id;
  }

  /** Listing and reading pipeline schedules: Reporter and up. */
  async canReadPipelineSchedules(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, REPORTER);
  }

  /** Creating a pipeline schedule (the creator owns it): Developer and up. */
  async canCreatePipelineSchedule(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /** `create_pipeline_schedule` for the schedule's ref: who may create schedules and update that ref. */
  async canCreatePipelineScheduleFor(project: ProjectRecord, actor: Actor, refWritable: boolean): Promise<boolean> {
    return refWritable && (await this.canCreatePipelineSchedule(project, actor));
  }

  /**
   * `admin_pipeline_schedule` (delete, take over, delete a variable): Maintainers, or the
   * owner while a Developer. Taking over needs no right on the ref: a scheduled run checks
   * its owner's rights on the ref when it creates the pipeline.
   */
  async canAdminPipelineSchedule(project: ProjectRecord, schedule: { owner_id: number | null }, actor: Actor): Promise<boolean> {
    if (await this.projectLevelAtLeast(project, actor, MAINTAINER)) return true;
    return this.ownsPipelineSchedule(project, schedule, actor);
  }

  /** `read_pipeline_schedule_variables`: the values are for those who administer the schedule. */
  async canReadPipelineScheduleVariables(project: ProjectRecord, schedule: { owner_id: number | null }, actor: Actor): Promise<boolean> {
    return this.canAdminPipelineSchedule(project, schedule, actor);
  }

  /**
   * `update_pipeline_schedule` (edit, create and change variables): administrators, or the
   * owner while a Developer; and only while they may update the schedule's ref, before and
   * after the edit.
   */
  async canEditPipelineSchedule(project: ProjectRecord, schedule: { owner_id: number | null }, actor: Actor, refWritable: boolean): Promise<boolean> {
    if (!refWritable) return false;
    return actor?.is_admin === true || this.ownsPipelineSchedule(project, schedule, actor);
  }

  /** `play_pipeline_schedule`: who may run pipelines in the project and update the schedule's ref; the run is theirs. */
  async canPlayPipelineSchedule(project: ProjectRecord, actor: Actor, refWritable: boolean): Promise<boolean> {
    return refWritable && (await this.canCreatePipeline(project, actor));
  }

  private async ownsPipelineSchedule(project: ProjectRecord, schedule: { owner_id: number | null }, actor: Actor): Promise<boolean> {
    return actor !== null && schedule.owner_id === actor.id && (await this.projectLevelAtLeast(project, actor, DEVELOPER));
  }

  /**
   * `read_resource_group` and `update_resource_group` (listing, reading and changing a project's
   * resource groups): Developers and up; nobody while the project's CI is disabled.
   */
  async canManageResourceGroups(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!project.jobs_enabled) return false;
    return this.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /** Listing and reading environments: Reporter and up. */
  async canReadEnvironments(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, REPORTER);
  }

  /** Creating, updating, stopping and deleting environments: Developer and up (`update_environment`, `create_deployment`). */
  async canManageEnvironments(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /** `destroy_environment`: who manages environments, and only a stopped one (GitLab's EnvironmentPolicy: `~stopped` prevents it, whoever asks). */
  async canDeleteEnvironment(project: ProjectRecord, actor: Actor, environment: Pick<EnvironmentRecord, 'state'>): Promise<boolean> {
    return environment.state === 'stopped' && (await this.canManageEnvironments(project, actor));
  }
  // end of CI settings area ------------------------------------------------------------------

  // ---- runners area (api/runners*.ts, services/runners/*) -----------------------------------
  // GitLab's "owned runners": project runners of the projects one maintains, group runners of
  // the groups one owns; administrators own them all. Shared runners show to anyone signed in.

  /** Administrators see every runner (`/runners/all`) and keep the instance registration token. */
  administersAllRunners(actor: Actor): boolean {
    return actor?.is_admin === true;
  }

  /** Where the caller's own runners are: projects at Maintainer and up, groups they own. */
  runnerOwnershipScope(access: ActorProjectAccess): { projectNamespaceIds: number[]; projectIds: number[]; groupIds: number[] } {
    const levelAtLeast = (level: AccessLevel) => [...access.namespaceLevels].flatMap(([id, held]) => (held >= level ? [id] : []));
    const projectIds = [...access.projectMembers.values()].flatMap((member) => (member.access_level >= MAINTAINER ? [member.source_id] : []));
    return { projectNamespaceIds: levelAtLeast(MAINTAINER), projectIds, groupIds: levelAtLeast(OWNER) };
  }

  /** Seeing, changing, removing and enabling elsewhere a runner of these projects or groups. */
  async ownsRunner(owners: { projects: readonly ProjectRecord[]; groups: readonly NamespaceRecord[] }, actor: Actor): Promise<boolean> {
    if (!actor) return false;
    if (actor.is_admin) return true;
    for (const project of owners.projects) if (await this.projectLevelAtLeast(project, actor, MAINTAINER)) return true;
    for (const group of owners.groups) if (await this.groupLevelAtLeast(group, actor, OWNER)) return true;
    return false;
  }

  /** A runner's details list, of its projects, those the caller is a member of (all of them for administrators). */
  async seesRunnerProject(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, GUEST);
  }

  /** A shared runner's details show to anyone signed in. */
  seesSharedRunner(actor: Actor): boolean {
    return actor !== null;
  }

  /** A project's runners (list, enable, disable, its registration token): Maintainer and up. */
  async canManageProjectRunners(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.projectLevelAtLeast(project, actor, MAINTAINER);
  }

  /** A group's webhooks (`/groups/:id/hooks`, GitLab's `admin_hook`): its owners. */
  async canManageGroupHooks(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.groupLevelAtLeast(group, actor, OWNER);
  }

  /** A group's registration token: its owners. */
  async canManageGroupRunners(group: NamespaceRecord, actor: Actor): Promise<boolean> {
    return this.groupLevelAtLeast(group, actor, OWNER);
  }

  // ---- end of runners area ------------------------------------------------------------------

  // ---- CI jobs and commit statuses area (api/jobs.ts, api/commit-statuses.ts, services/pipelines/) ----

  // canReadJobs (read_build) is in the pipelines area.

  /**
   * Canceling, retrying and playing a job (`update_build`): Developers and up, and on a
   * protected ref only those who may push or merge there (`refWritable`, from the
   * protected-branch or protected-tag rules). Archived projects run nothing; nobody acts on a
   * job whose deployment is outdated (`outdatedDeployment`: GitLab's `DeployablePolicy`).
   */
  async canUpdateJob(project: ProjectRecord, actor: Actor, refWritable: boolean, outdatedDeployment = false): Promise<boolean> {
    if (project.archived || !project.jobs_enabled || outdatedDeployment) return false;
    if (!(await this.projectLevelAtLeast(project, actor, DEVELOPER))) return false;
    return actor?.is_admin === true || refWritable;
  }

  /**
   * `update_build` of a trigger job (bridge): retrying it, and the first half of playing it.
   * Developers and up: GitLab's bridges have no protected-ref rule. Refused, as for builds, in
   * an archived project, with jobs off, or for an outdated deployment (`DeployablePolicy`).
   */
  async canUpdateBridge(project: ProjectRecord, actor: Actor, outdatedDeployment: boolean): Promise<boolean> {
    return this.canUpdateJob(project, actor, true, outdatedDeployment);
  }

  /**
   * `play_job` of a trigger job (GitLab's `Ci::BridgePolicy`): updating it, and the right to
   * update the branch its downstream pipeline runs for in the project it runs in
   * (`downstreamBranchWritable`: push or merge there; false when that project is unknown).
   */
  async canPlayBridge(project: ProjectRecord, actor: Actor, downstreamBranchWritable: boolean, outdatedDeployment: boolean): Promise<boolean> {
    return downstreamBranchWritable && (await this.canUpdateBridge(project, actor, outdatedDeployment));
  }

  /**
   * Erasing a job (`erase_build`): Maintainers and up; or the user who triggered the job, when
   * they may update it and its ref is not protected. Nobody erases a job whose deployment is
   * outdated (GitLab's `DeployablePolicy` prevents the cleanup abilities too).
   */
  async canEraseJob(
    project: ProjectRecord, actor: Actor, job: { user_id: number | null }, ref: { protected: boolean; writable: boolean }, outdatedDeployment = false,
  ): Promise<boolean> {
    if (!actor || project.archived || outdatedDeployment) return false;
    if (await this.projectLevelAtLeast(project, actor, MAINTAINER)) return true;
    const ownJob = job.user_id !== null && job.user_id === actor.id;
    return ownJob && !ref.protected && (await this.canUpdateJob(project, actor, ref.writable));
  }

  /** Creating and updating external commit statuses (`create_commit_status`): Developers and up. */
  async canCreateCommitStatus(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (project.archived) return false;
    return this.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /**
   * A status into a pipeline (`update_pipeline` of it, as GitLab's CreateCommitStatusService
   * asks): who may create statuses and update the pipeline's ref (`refWritable`: push or merge
   * to a protected branch, create a protected tag), since a failed status fails the pipeline.
   * Not tied to `jobs_enabled`: external CI reports statuses while the project's own is off.
   */
  async canSetCommitStatus(project: ProjectRecord, actor: Actor, refWritable: boolean): Promise<boolean> {
    return refWritable && (await this.canCreateCommitStatus(project, actor));
  }
  /**
   * Whom a CI job token reads a repository as: the job's user on the job's own project; on
   * any other project nobody (anonymous), so only public code is readable with it.
   */
  jobTokenReader(project: ProjectRecord, job: { projectId: number }, user: UserRecord | null): UserRecord | null {
    return project.id === job.projectId ? user : null;
  }
  // end of CI jobs and commit statuses area -------------------------------------------------

  // ---- pipeline creation area (services/pipelines/creation*.ts, api/pipelines-create.ts) ----

  /** Running a pipeline (API, trigger owner, schedule owner, pusher): Developer and up, with jobs enabled. */
  async canCreatePipeline(project: ProjectRecord, actor: Actor): Promise<boolean> {
    if (!project.jobs_enabled || project.archived || project.pending_delete) return false;
    if (actor && (actor.state !== 'active' || actor.is_ghost)) return false;
    return this.projectLevelAtLeast(project, actor, DEVELOPER);
  }

  /** Linting a project's CI file: whoever may read its code (a dry run also needs canCreatePipeline). */
  async canLintProjectConfig(project: ProjectRecord, actor: Actor): Promise<boolean> {
    return this.canReadRepository(project, actor);
  }

  // end of pipeline creation area ------------------------------------------------------------
}
