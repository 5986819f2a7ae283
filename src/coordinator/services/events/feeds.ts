import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { EventAction, EventListFilter, EventRecord, EventsStore } from '../../../storage/types-events.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { ActorProjectAccess } from '../access/levels.ts';
import { actorProjectAccess, type ProjectScopeDeps } from '../namespaces/project-scope.ts';
import type { UsersService } from '../accounts/users.ts';

/** The filters of every events feed (GitLab's EventFilter and its `before`/`after` dates). */
export interface EventFeedQuery {
  action?: EventAction;
  /** GitLab's lower-case name (issue, merge_request, note, milestone, project ...). */
  targetType?: string;
  /** `YYYY-MM-DD`: events created before that day. */
  before?: string;
  /** `YYYY-MM-DD`: events created after that day (from the next day on). */
  after?: string;
  sort: 'asc' | 'desc';
}

export interface EventFeedsDeps extends ProjectScopeDeps {
  events: Pick<EventsStore, 'list'>;
  lookup: Pick<Lookup, 'readableProject'>;
  permissions: Pick<Permissions, 'projectListingScope' | 'isAdministrator'>;
  users: Pick<UsersService, 'readableByIdOrUsername'>;
  authors: Pick<UsersStore, 'findByIds'>;
}

/** A page of events with their authors (by id). */
export interface EventPage {
  items: EventRecord[];
  total: number;
  authors: Map<number, UserRecord>;
}

type Page = { offset: number; limit: number };

const REPORTER = 20;

/** `GET /events`, `GET /users/:id/events`, `GET /projects/:id/events`: only events of projects the caller can read. */
export class EventFeeds {
  constructor(private readonly deps: EventFeedsDeps) {}

  async own(actor: UserRecord, query: EventFeedQuery, page: Page): Promise<EventPage> {
    return this.page({ ...(await this.visibleTo(actor)), ...filterOf(query), authorId: actor.id }, page);
  }

  async ofUser(actor: Actor, userRef: string, query: EventFeedQuery, page: Page): Promise<EventPage> {
    const user = await this.deps.users.readableByIdOrUsername(actor, userRef);
    return this.page({ ...(await this.visibleTo(actor)), ...filterOf(query), authorId: user.id }, page);
  }

  async ofProject(actor: Actor, projectRef: string, query: EventFeedQuery, page: Page): Promise<EventPage> {
    const project: ProjectRecord = await this.deps.lookup.readableProject(projectRef, actor);
    const access = await actorProjectAccess(this.deps, actor);
    return this.page({ scope: null, confidential: this.confidentialScope(actor, access), ...filterOf(query), projectId: project.id }, page);
  }

  private async page(filter: EventListFilter, page: Page): Promise<EventPage> {
    const { items, total } = await this.deps.events.list(filter, page);
    const users = await this.deps.authors.findByIds([...new Set(items.map((event) => event.author_id))]);
    return { items, total, authors: new Map(users.map((user) => [user.id, user])) };
  }

  private async visibleTo(actor: Actor): Promise<Pick<EventListFilter, 'scope' | 'confidential'>> {
    const access = await actorProjectAccess(this.deps, actor);
    return { scope: this.deps.permissions.projectListingScope(actor, access), confidential: this.confidentialScope(actor, access) };
  }

  /**
   * Confidential issues' and internal notes' events: administrators see all; others their own
   * and those of projects where they are at least reporters, through a group (or its ancestors)
   * or the project. Access through a share with their group is not counted (left hidden).
   */
  private confidentialScope(actor: Actor, access: ActorProjectAccess): EventListFilter['confidential'] {
    if (actor && this.deps.permissions.isAdministrator(actor)) return 'all';
    const namespaceIds = [...access.namespaceLevels].filter(([, level]) => level >= REPORTER).map(([id]) => id);
    const projectIds = [...access.projectMembers].filter(([, member]) => member.access_level >= REPORTER).map(([id]) => id);
    return { authorId: actor?.id ?? null, namespaceIds, projectIds };
  }
}

/** GitLab's target type names (the API's `target_type` values) and the class names events store. */
const TARGET_CLASSES: Record<string, string> = {
  issue: 'Issue', milestone: 'Milestone', merge_request: 'MergeRequest', note: 'Note', project: 'Project', snippet: 'Snippet', user: 'User',
};

function filterOf(query: EventFeedQuery): Omit<EventListFilter, 'scope' | 'confidential'> {
  return {
    action: query.action,
    targetType: query.targetType === undefined ? undefined : TARGET_CLASSES[query.targetType],
    before: query.before === undefined ? undefined : `${query.before}T00:00:00.000Z`,
    after: query.after === undefined ? undefined : nextDay(query.after),
    sort: query.sort,
  };
}

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
}
