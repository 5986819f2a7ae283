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
  /** Set once the request is answered: work it started and left running reads afresh. */
  closed = false;

  constructor(
    /** The caller whose memberships and levels the memo holds: checks for anyone else get no memo. */
    readonly caller: Pick<UserRecord, 'id' | 'is_admin' | 'external'>,
  ) {}
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

const MEMO = Symbol('request memo');

/** A caller carrying its request's memo (an enumerable symbol: copies made by spreading keep it, JSON never shows it). */
type Carrier = UserRecord & { readonly [MEMO]?: RequestMemo };

/**
 * The memos of read requests, carried by the request's caller: `open` answers the caller the
 * request hands to the services (a copy: authentication may hand several requests the same
 * cached record), and every check made with it, or with a copy of it, shares one memo until
 * `close`. Only reads open one: a request that writes must see its own changes. Anonymous
 * requests need none (visibility alone decides for them).
 */
export class RequestMemos {
  open(actor: UserRecord): UserRecord {
    const carrier: Carrier = { ...actor, [MEMO]: new RequestMemo(actor) };
    return carrier;
  }

  close(actor: UserRecord | null): void {
    const memo = actor ? (actor as Carrier)[MEMO] : undefined;
    if (memo) memo.closed = true;
  }

  /** The open memo `actor` carries, if it was opened for this very caller (a copy altered to someone else gets none). */
  of(actor: UserRecord | null): RequestMemo | undefined {
    if (!actor) return undefined;
    const memo = (actor as Carrier)[MEMO];
    if (!memo || memo.closed) return undefined;
    const { caller } = memo;
    return caller.id === actor.id && caller.is_admin === actor.is_admin && caller.external === actor.external ? memo : undefined;
  }
}
