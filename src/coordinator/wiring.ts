import path from 'node:path';
import { FsUploadBlobs } from '../storage/fs/uploads.ts';
import type { CoordinatorContext } from './context.ts';
import { AvatarFiles, AvatarsService } from './services/accounts/avatars.ts';
import { ProjectUploadsService } from './services/accounts/project-uploads.ts';
import { CustomAttributesService } from './services/accounts/custom-attributes.ts';
import { NamespacesService } from './services/namespaces/namespaces.ts';
import { RepositoryGroupStatistics } from './services/namespaces/group-statistics.ts';
import { GroupChangesService } from './services/namespaces/groups-changes.ts';
import { GroupSharesService } from './services/namespaces/group-shares.ts';
import { GroupTransferService } from './services/namespaces/groups-transfer.ts';
import { ProjectGroupsService } from './services/namespaces/projects-groups.ts';
import { ProjectStorageService } from './services/namespaces/projects-storage.ts';
import { GroupsService } from './services/namespaces/groups.ts';
import { MembersService } from './services/namespaces/members.ts';
import { MembershipsService } from './services/namespaces/memberships.ts';
import { AccessTokensService } from './services/accounts/access-tokens.ts';
import { ResourceAccessTokensService } from './services/accounts/resource-access-tokens.ts';
import { ApplicationSettingsService } from './services/instance/settings-admin.ts';
import { GpgKeysService, SshKeysService } from './services/accounts/users-keys.ts';
import { KeyLookupService } from './services/accounts/key-lookup.ts';
import { UserRemoval } from './services/accounts/users-removal.ts';
import { UsersService } from './services/accounts/users.ts';
import { UserStatusService } from './services/accounts/user-status.ts';
import { ProjectActions } from './services/namespaces/project-actions.ts';
import { ProjectSharesService } from './services/namespaces/project-shares.ts';
import { ProjectTransfer } from './services/namespaces/project-transfer.ts';
import { ProjectViews } from './services/namespaces/project-views.ts';
import { ProjectListing } from './services/namespaces/projects-listing.ts';
import { ProjectsService } from './services/namespaces/projects.ts';
import { DefaultBranchOnCreation } from './services/repository/default-branch.ts';
import { buildCiServices, type CiServices } from './wiring-ci.ts';
import { buildRepositoryMaintenanceServices, buildRepositoryServices } from './wiring-repository.ts';
import { buildCiSettingsServices } from './wiring-ci-settings.ts';
import { buildRunnersServices } from './wiring-runners.ts';
import { buildPlanningServices } from './wiring-planning.ts';
import { JobQueueMetrics } from './services/monitoring/job-queue.ts';
import { buildIntegrationServices } from './wiring-integrations.ts';
import { buildHookServices } from './wiring-hooks.ts';
import { buildActivityServices } from './wiring-activity.ts';
import { buildPackageServices, packageFileBlobs } from './wiring-packages.ts';

/**
 * The services of the API, each built with the narrow stores and collaborators it needs
 * (the second half of app.ts's wiring; nothing else builds services).
 */
export function buildServices(context: CoordinatorContext, ci: CiServices = buildCiServices(context), edge: { jobRequestLongPollSeconds?: number; packageFileLimit?: number } = {}) {
  const { stores, lookup, permissions } = context;
  const namespaces = new NamespacesService({ namespaces: stores.namespaces, groupQueries: stores.groupQueries, members: stores.members, lookup, permissions });
  const projectsArea = buildProjectsArea(context, namespaces);
  const accountsArea = groupsAndUsersServices(context, projectsArea.transfer);
  const activity = buildActivityServices(context, accountsArea.users);
  ci.mergeRequestObserverList.push(activity.activityRecorder);
  return {
    namespaces,
    ...projectsArea,
    ...accountsArea,
    ...activity,
    ...buildRepositoryServices(context, { releaseObservers: [ci.hookEvents] }),
    ...buildRepositoryMaintenanceServices(context, ci.taskQueue),
    ...ci,
    ...buildCiSettingsServices(context, ci.environmentStopAction),
    ...buildRunnersServices(context, ci, edge.jobRequestLongPollSeconds),
    ...buildPlanningServices(context, ci.mergeRequestObserverList, { issueObservers: [ci.hookEvents, activity.activityRecorder], mergeRequestNoteObservers: [ci.hookEvents, activity.activityRecorder], mergeStatusChecks: ci.mergeStatusCheck }),
    jobQueueMetrics: new JobQueueMetrics({
      tasks: stores.tasks,
      instances: stores.instances,
      permissions,
      instanceId: context.instance.id,
      workers: [ci.taskWorker, ci.hookWorker],
      staleAfterMs: context.instance.staleAfterMs,
    }),
    ...buildIntegrationServices(context),
    ...buildHookServices(context, ci),
    ...uploadServices(context),
    ...buildPackageServices(context, ci.jobTokenAccess, edge.packageFileLimit),
    readCache: context.readCache,
  };
}

/** Groups, members, users, keys, tokens and settings. */
function groupsAndUsersServices(context: CoordinatorContext, transfer: ProjectTransfer) {
  const { stores, lookup, permissions, settings } = context;
  const statistics = new RepositoryGroupStatistics({ namespaces: stores.namespaces, projects: stores.projects, repositories: context.repositories });
  const groups = new GroupsService({
    groupQueries: stores.groupQueries,
    customAttributes: stores.customAttributes,
    groupLinks: stores.groupGroupLinks,
    namespaces: stores.namespaces,
    lookup,
    permissions,
    statistics,
    projectScope: scopeStores(context),
  });
  const groupChanges = new GroupChangesService({
    namespaces: stores.namespaces,
    projects: stores.projects,
    members: stores.members,
    customAttributes: stores.customAttributes,
    lookup,
    permissions,
    settings,
    groups,
    transfer,
    events: context.events,
    avatarFiles: avatarFiles(context),
    projectRemoval: buildProjectsService(context),
  });
  const groupTransfer = new GroupTransferService({ namespaces: stores.namespaces, projects: stores.projects, lookup, permissions, groups, events: context.events });
  const groupShares = new GroupSharesService({ groupLinks: stores.groupGroupLinks, lookup, permissions, groups });
  const members = new MembersService({
    members: stores.members,
    memberQueries: stores.memberQueries,
    namespaces: stores.namespaces,
    users: stores.users,
    lookup,
    permissions,
    events: context.events,
  });
  const memberships = new MembershipsService({
    namespaces: stores.namespaces,
    memberQueries: stores.memberQueries,
    members: stores.members,
    projects: stores.projects,
    projectQueries: stores.projectQueries,
    users: stores.users,
    lookup,
    permissions,
  });
  const removal = new UserRemoval({
    users: stores.users,
    userLifecycle: stores.userLifecycle,
    namespaces: stores.namespaces,
    projects: stores.projects,
    customAttributes: stores.customAttributes,
    repositories: context.repositories,
    events: context.events,
    accounts: context.accounts,
    externalUrl: context.config.externalUrl,
    avatarFiles: avatarFiles(context),
    packageFiles: packageFileBlobs(context),
  });
  const users = new UsersService({
    users: stores.users,
    namespaces: stores.namespaces,
    customAttributes: stores.customAttributes,
    settings,
    accounts: context.accounts,
    lookup,
    permissions,
    removal,
    secondaryEmails: stores.userEmails,
    events: context.events,
  });
  const sshKeys = new SshKeysService({ sshKeys: stores.sshKeys, settings, users, events: context.events });
  const keyLookup = new KeyLookupService({ sshKeys: stores.sshKeys, deployKeys: stores.deployKeys, users: stores.users, permissions });
  const gpgKeys = new GpgKeysService({ gpgKeys: stores.gpgKeys, users });
  const accessTokens = new AccessTokensService({ tokens: stores.tokens, lookup, permissions });
  const resourceAccessTokens = new ResourceAccessTokensService({
    tokens: stores.tokens,
    bots: stores.resourceBots,
    members: stores.members,
    accounts: context.accounts,
    lookup,
    permissions,
    host: new URL(context.config.externalUrl).hostname,
  });
  const applicationSettings = new ApplicationSettingsService({ settings, permissions });
  const userStatus = new UserStatusService({ statuses: stores.userStatuses, users });
  return { groups, groupChanges, groupTransfer, groupShares, members, memberships, users, userStatus, sshKeys, keyLookup, gpgKeys, accessTokens, resourceAccessTokens, applicationSettings };
}

/** Avatars and project uploads, kept under `<data dir>/uploads`. */
function uploadServices(context: CoordinatorContext) {
  const { stores, lookup, settings } = context;
  const blobs = uploadBlobs(context);
  return {
    avatars: new AvatarsService({ blobs, users: stores.users, projects: stores.projects, namespaces: stores.namespaces, lookup, logger: context.logger }),
    projectUploads: new ProjectUploadsService({ blobs, lookup, settings }),
  };
}

function uploadBlobs(context: CoordinatorContext): FsUploadBlobs {
  return new FsUploadBlobs(path.join(context.config.dataDir, 'uploads'));
}

/** Removes the avatar files of deleted users, groups and projects. */
function avatarFiles(context: CoordinatorContext): AvatarFiles {
  return new AvatarFiles({ blobs: uploadBlobs(context), logger: context.logger });
}

export type CoordinatorServices = ReturnType<typeof buildServices>;

/** What the HTTP edge needs besides services: where the coordinator is reached. */
export interface EdgeConfig {
  externalUrl: string;
}

// ---- projects area ------------------------------------------------------------------------

function buildProjectsArea(context: CoordinatorContext, namespaces: NamespacesService) {
  const { stores, lookup, permissions } = context;
  const views = buildProjectViews(context);
  const projects = buildProjectsService(context);
  const transfer = new ProjectTransfer({ projects: stores.projects, projectQueries: stores.projectQueries, permissions, namespaces: stores.namespaces, events: context.events });
  const shares = new ProjectSharesService({ projectGroupLinks: stores.projectGroupLinks, namespaces: stores.namespaces, lookup });
  return {
    transfer,
    projectViews: views,
    projectListing: new ProjectListing({ ...scopeStores(context), customAttributes: stores.customAttributes, lookup, permissions, views }),
    projectActions: new ProjectActions({ lookup, permissions, projects, projectQueries: stores.projectQueries, namespaces, views, transfer, shares }),
    customAttributes: new CustomAttributesService({ store: stores.customAttributes, lookup, permissions }),
    projectStorage: new ProjectStorageService({ lookup, permissions }),
    projectGroups: new ProjectGroupsService({ accessFacts: stores.accessFacts, namespaces: stores.namespaces, lookup, permissions }),
  };
}

/** Creating, editing and deleting projects (also used by start-up reconciliation and the push listener). */
export function buildProjectsService(context: CoordinatorContext): ProjectsService {
  const { stores, lookup, permissions, repositories, events, settings } = context;
  return new ProjectsService({
    projects: stores.projects,
    projectQueries: stores.projectQueries,
    namespaces: stores.namespaces,
    members: stores.members,
    customAttributes: stores.customAttributes,
    repositories,
    events,
    settings,
    lookup,
    permissions,
    instanceId: context.instance.id,
    avatarFiles: avatarFiles(context),
    packageFiles: packageFileBlobs(context),
    defaultBranch: new DefaultBranchOnCreation({ projects: stores.projects, repositories, protectedBranches: context.protectedBranches }),
  });
}

/** Project views (also rendered by the groups area's project lists). */
export function buildProjectViews(context: CoordinatorContext): ProjectViews {
  const { stores, permissions, repositories } = context;
  return new ProjectViews({ ...scopeStores(context), projects: stores.projects, users: stores.users, customAttributes: stores.customAttributes, repositories, permissions });
}

function scopeStores({ stores }: CoordinatorContext) {
  return { namespaces: stores.namespaces, members: stores.members, projectQueries: stores.projectQueries, groupGroupLinks: stores.groupGroupLinks };
}
