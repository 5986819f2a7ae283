import type { CoordinatorContext } from './context.ts';
import { PlanningPermissions } from './services/access/planning-permissions.ts';
import { LabelsService } from './services/planning/labels.ts';
import { MilestonesService } from './services/planning/milestones.ts';
import { PlanningOwners } from './services/planning/planning-owner.ts';

/** The planning area: labels, milestones and issues. */
export function buildPlanningServices(context: CoordinatorContext) {
  const { stores, lookup, permissions } = context;
  const planningPermissions = new PlanningPermissions(permissions);
  const owners = new PlanningOwners({ lookup, namespaces: stores.namespaces, planningPermissions });
  const scope = { namespaces: stores.namespaces, members: stores.members, projectQueries: stores.projectQueries, groupGroupLinks: stores.groupGroupLinks };
  const labels = new LabelsService({ ...scope, labels: stores.labels, issues: stores.issues, projects: stores.projects, owners, planningPermissions, permissions });
  const milestones = new MilestonesService({ milestones: stores.milestones, namespaces: stores.namespaces, owners });
  return { labels, milestones };
}
