import type { AccessLevel, MemberRecord, NamespaceRecord, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { GroupGroupLinkRecord } from '../../../storage/types-projects.ts';

/**
 * What one read request has resolved about projects, namespaces and its caller's
 * memberships, so that each is looked up once however many checks ask (the project's read
 * rule, its presenter, the fork parent's and share groups' read rules).
 */
export class RequestMemo {
  readonly projects = new Map<string, Promise<ProjectRecord | undefined>>();
  readonly chains = new Map<number, Promise<NamespaceRecord[]>>();
  readonly groupShares = new Map<string, Promise<GroupGroupLinkRecord[]>>();
  readonly projectShares = new Map<number, Promise<Array<{ group_id: number; group_access: AccessLevel }>>>();
  readonly levels = new Map<string, Promise<unknown>>();
  memberships: Promise<MemberRecord[]> | undefined;
}

/** The memoised answer of `compute` for `key`, or computes (and keeps) it. */
export function remember<K, V>(memo: Map<K, Promise<V>> | undefined, key: K, compute: () => Promise<V>): Promise<V> {
  if (!memo) return compute();
  let value = memo.get(key);
  if (!value) {
    value = compute();
    memo.set(key, value);
  }
  return value;
}

/**
 * The memos of the requests in flight, found through the request's actor: `open` gives the
 * request an actor object of its own (authentication may hand several requests the same
 * cached record), and every check made with it shares one memo until `close`. Only reads
 * open one: a request that writes must see its own changes. Anonymous requests need none
 * (visibility alone decides for them).
 */
export class RequestMemos {
  private readonly byActor = new WeakMap<UserRecord, RequestMemo>();

  open(actor: UserRecord): UserRecord {
    const own = { ...actor };
    this.byActor.set(own, new RequestMemo());
    return own;
  }

  close(actor: UserRecord | null): void {
    if (actor) this.byActor.delete(actor);
  }

  of(actor: UserRecord | null): RequestMemo | undefined {
    return actor ? this.byActor.get(actor) : undefined;
  }
}
