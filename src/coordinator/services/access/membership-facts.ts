import type { AccessLevel, MemberRecord, NamespaceRecord, NamespacesStore, UserRecord } from '../../../storage/types.ts';
import type { AccessFactsStore } from '../../../storage/types-access.ts';
import type { GroupGroupLinkRecord, GroupGroupLinksStore } from '../../../storage/types-projects.ts';
import type { Actor } from './levels.ts';
import { remember, RequestMemos, type RequestMemo } from './request-memo.ts';

/**
 * What the access rules read from the stores, and the per-request memoisation of it: within
 * one read request each fact (and each level computed from facts) is looked up once however
 * many checks ask. No rule lives here; the rules (membership-levels.ts, permissions*.ts) ask.
 * The memo mechanism moved here from the permission module unchanged.
 */
export class MembershipFacts {
  constructor(
    private readonly facts: AccessFactsStore,
    private readonly namespaces: NamespacesStore,
    private readonly groupLinks: GroupGroupLinksStore,
    /** Per-request memos: within one read request each fact is looked up once. */
    readonly memos: RequestMemos = new RequestMemos(),
  ) {}

  /**
   * Runs `read` (the answer to a write, once the write is done) with a request memo of its
   * own, so that the answer resolves each fact once as a read request does.
   */
  async readAfterWrite<T>(actor: UserRecord, read: (reader: UserRecord) => Promise<T>): Promise<T> {
    const reader = this.memos.open(actor);
    try {
      return await read(reader);
    } finally {
      this.memos.close(reader);
    }
  }

  /** `compute`'s answer for `key`, computed once per request of `actor` (a level derived from facts). */
  rememberLevel<T>(actor: UserRecord, key: string, compute: () => Promise<T>): Promise<T> {
    return remember(this.memos.of(actor)?.levels as Map<string, Promise<T>> | undefined, key, compute);
  }

  /** Every membership of the user (of groups and of projects). */
  membershipsOf(actor: UserRecord): Promise<MemberRecord[]> {
    const memo = this.memos.of(actor);
    if (!memo) return this.facts.membershipsOf(actor.id);
    memo.memberships ??= this.facts.membershipsOf(actor.id);
    return memo.memberships;
  }

  /** The namespace followed by its ancestors, nearest first; empty when it does not exist. */
  chainOf(namespaceId: number, actor: Actor): Promise<NamespaceRecord[]> {
    return remember(this.memoOf(actor)?.chains, namespaceId, () => this.facts.namespaceChain(namespaceId));
  }

  /** The namespace's id and its ancestors' (the id alone when it does not exist). */
  async selfAndAncestors(namespaceId: number, actor: Actor): Promise<number[]> {
    return [namespaceId, ...(await this.chainOf(namespaceId, actor)).slice(1).map((ancestor) => ancestor.id)];
  }

  /** The shares of any of the groups `chain` with other groups. */
  sharesOfGroups(chain: readonly number[], actor: Actor): Promise<GroupGroupLinkRecord[]> {
    return remember(this.memoOf(actor)?.groupShares, chain.join(','), () => this.groupLinks.listForSharedGroups(chain));
  }

  /** The shares of other groups with any of `groupIds` (the invited groups). */
  sharesWithGroups(groupIds: readonly number[]): Promise<GroupGroupLinkRecord[]> {
    return this.groupLinks.listForInvitedGroups([...groupIds]);
  }

  /**
   * The groups a project is shared with, as the read rules saw them: within a read request
   * they are read once for both the access decision and the answer.
   */
  projectShares(projectId: number, actor: Actor): Promise<Array<{ group_id: number; group_access: AccessLevel }>> {
    return remember(this.memoOf(actor)?.projectShares, projectId, () => this.facts.projectShares(projectId));
  }

  descendantIds(groupId: number): Promise<number[]> {
    return this.namespaces.descendantIds(groupId);
  }

  projectIdsIn(namespaceIds: readonly number[]): Promise<number[]> {
    return this.facts.projectIdsIn(namespaceIds);
  }

  namespacesOfMemberProjects(actor: UserRecord): Promise<number[]> {
    return this.facts.namespacesOfMemberProjects(actor.id);
  }

  /** Namespaces by id, taking those the request's read rules already resolved from its memo. */
  async namespacesByIds(ids: readonly number[], actor: Actor): Promise<NamespaceRecord[]> {
    const memo = this.memoOf(actor);
    const known: NamespaceRecord[] = [];
    const missing: number[] = [];
    for (const id of new Set(ids)) {
      const chain = memo?.chains.get(id);
      const namespace = chain && (await chain)[0];
      if (namespace) known.push(namespace);
      else missing.push(id);
    }
    return missing.length === 0 ? known : [...known, ...(await this.namespaces.findByIds(missing))];
  }

  private memoOf(actor: Actor): RequestMemo | undefined {
    return this.memos.of(actor);
  }
}
