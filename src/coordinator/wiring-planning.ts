import type { CoordinatorContext } from './context.ts';
import { PlanningPermissions } from './services/access/planning-permissions.ts';
import { LabelsService } from './services/planning/labels.ts';
import { MilestonesService } from './services/planning/milestones.ts';
import { IssueFields } from './services/planning/issue-fields.ts';
import { IssueViews } from './services/planning/issue-views.ts';
import { IssuesService } from './services/planning/issues.ts';
import { PlanningOwners } from './services/planning/planning-owner.ts';
import type { IssueObserver } from './services/planning/issue-observers.ts';
import { SystemNotes } from './services/planning/system-notes.ts';
import { SubscriptionsService } from './services/planning/subscriptions.ts';
import { TodosObserver } from './services/planning/todos-observer.ts';
import { TodosService } from './services/planning/todos.ts';

/** The planning area: labels, milestones and issues, subscriptions and todos. */
export function buildPlanningServices(context: CoordinatorContext) {
  const { stores, lookup, permissions } = context;
  const planningPermissions = new PlanningPermissions(permissions);
  const owners = new PlanningOwners({ lookup, namespaces: stores.namespaces, planningPermissions });
  const scope = { namespaces: stores.namespaces, members: stores.members, projectQueries: stores.projectQueries, groupGroupLinks: stores.groupGroupLinks };
  const labels = new LabelsService({ ...scope, labels: stores.labels, issues: stores.issues, projects: stores.projects, owners, planningPermissions, permissions });
  const milestones = new MilestonesService({ milestones: stores.milestones, namespaces: stores.namespaces, owners });
  const fields = new IssueFields({ labels: stores.labels, milestones: stores.milestones, users: stores.users, namespaces: stores.namespaces, permissions });
  const views = new IssueViews({ issues: stores.issues, milestones: stores.milestones, users: stores.users, projects: stores.projects, namespaces: stores.namespaces });
  const systemNotes = new SystemNotes({ notes: stores.notes });
  const observers: IssueObserver[] = [];
  observers.push(new TodosObserver({ todos: stores.todos, users: stores.users, planningPermissions }));
  const issues = new IssuesService({ ...scope, issues: stores.issues, lookup, permissions, planningPermissions, fields, views, milestones, observers });
  const subscriptions = new SubscriptionsService({ subscriptions: stores.subscriptions, issues, labels, lookup });
  const todos = new TodosService({ ...scope, todos: stores.todos, issues: stores.issues, views, users: stores.users, projects: stores.projects, permissions, planningPermissions });
  return { labels, milestones, issues, systemNotes, subscriptions, todos };
}
