import type { CoordinatorContext } from './context.ts';
import { UserActivity } from './services/accounts/user-activity.ts';
import { UserEmailsService } from './services/accounts/user-emails.ts';
import { UserIdentitiesService } from './services/accounts/user-identities.ts';
import type { UsersService } from './services/accounts/users.ts';
import { EventFeeds } from './services/events/feeds.ts';
import { ActivityRecorder } from './services/events/recorder.ts';

/**
 * Secondary e-mail addresses, identities, users' activity days and the activity events: the
 * recorder (an observer the caller adds to the issue, merge request and note observer lists,
 * and a listener of pushes subscribed here) and the feeds that read them.
 */
export function buildActivityServices(context: CoordinatorContext, users: UsersService) {
  const { stores, lookup, permissions, logger } = context;
  const userActivity = new UserActivity({ activity: stores.userActivity, permissions, logger });
  const activityRecorder = new ActivityRecorder({ events: stores.activityEvents, users: stores.users, repositories: context.repositories, activity: userActivity, logger });
  // Heard after the push is acknowledged: the git reads for its commit count never delay it.
  context.events.onPush((push) => activityRecorder.pushed(push));
  context.events.onSystemEvent((event) => activityRecorder.systemEvent(event));
  return {
    userActivity,
    activityRecorder,
    userEmails: new UserEmailsService({ emails: stores.userEmails, users: stores.users, accounts: users }),
    userIdentities: new UserIdentitiesService({ users: stores.users, accounts: users }),
    eventFeeds: new EventFeeds({
      events: stores.activityEvents,
      lookup,
      permissions,
      users,
      authors: stores.users,
      namespaces: stores.namespaces,
      members: stores.members,
      projectQueries: stores.projectQueries,
      groupGroupLinks: stores.groupGroupLinks,
    }),
  };
}
