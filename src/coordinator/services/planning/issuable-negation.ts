import type { UsersStore } from '../../../storage/types.ts';
import type { NegatedIssuableFilter } from '../../../storage/types-planning.ts';
import type { Actor } from '../access/permissions.ts';

/** `not[...]` of the issue and merge request lists as the API reads it: users also by username, the emoji the caller's own. */
export type NegatedIssuableQuery = Omit<NegatedIssuableFilter, 'reactedBy'> & {
  authorUsername?: string;
  assigneeUsername?: string;
  myReactionEmoji?: string;
};

export const userIdOf = async (users: Pick<UsersStore, 'findByUsername'>, username: string | undefined): Promise<number | undefined> =>
  username === undefined ? undefined : (await users.findByUsername(username))?.id;

/** `not[...]` for the store: a username that names nobody leaves nothing out; so does an emoji without a caller. */
export async function negatedFilter(users: Pick<UsersStore, 'findByUsername'>, not: NegatedIssuableQuery, actor: Actor): Promise<NegatedIssuableFilter> {
  const { authorUsername, assigneeUsername, myReactionEmoji, ...filter } = not;
  return {
    ...filter,
    authorId: filter.authorId ?? (await userIdOf(users, authorUsername)),
    assigneeId: filter.assigneeId ?? (await userIdOf(users, assigneeUsername)),
    ...(actor && myReactionEmoji !== undefined ? { reactedBy: { userId: actor.id, emoji: myReactionEmoji } } : {}),
  };
}
