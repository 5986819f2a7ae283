import type { CoordinatorContext } from './context.ts';
import { CustomAttributesService } from './services/custom-attributes.ts';
import { NamespacesService } from './services/namespaces.ts';
import { ProjectActions } from './services/project-actions.ts';
import { ProjectSharesService } from './services/project-shares.ts';
import { ProjectTransfer } from './services/project-transfer.ts';
import { ProjectViews } from './services/project-views.ts';
import { ProjectListing } from './services/projects-listing.ts';
import { ProjectsService } from './services/projects.ts';

/**
 * The services of the API, each built with the narrow stores and collaborators it needs
 * (the second half of app.ts's wiring; nothing else builds services).
 */
export function buildServices(context: CoordinatorContext) {
  const { stores, lookup, permissions } = context;
  const namespaces = new NamespacesService({ namespaces: stores.namespaces, groupQueries: stores.groupQueries, members: stores.members, lookup, permissions });
  return { namespaces, ...buildProjectsArea(context, namespaces), readCache: context.readCache };
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
  const transfer = new ProjectTransfer({ projects: stores.projects, projectQueries: stores.projectQueries, permissions });
  const shares = new ProjectSharesService({ projectGroupLinks: stores.projectGroupLinks, namespaces: stores.namespaces, lookup, permissions });
  return {
    projectViews: views,
    projectListing: new ProjectListing({ ...scopeStores(context), customAttributes: stores.customAttributes, lookup, permissions, views }),
    projectActions: new ProjectActions({ lookup, permissions, projects, projectQueries: stores.projectQueries, namespaces, views, transfer, shares }),
    customAttributes: new CustomAttributesService({ store: stores.customAttributes, lookup }),
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
