import type { AccessLevel, MemberRecord, NamespaceRecord } from './types.ts';

/** What access decisions read, each in one statement (src/coordinator/services/permissions.ts decides). */
export interface AccessFactsStore {
  /** The namespace followed by its ancestors, nearest first; empty when it does not exist. */
  namespaceChain(namespaceId: number): Promise<NamespaceRecord[]>;
  /** Every membership of the user: of groups and of projects. */
  membershipsOf(userId: number): Promise<MemberRecord[]>;
  /** The groups a project is shared with, and the level each share grants. */
  projectShares(projectId: number): Promise<Array<{ group_id: number; group_access: AccessLevel }>>;
  /** The ids of the projects directly inside the given namespaces. */
  projectIdsIn(namespaceIds: readonly number[]): Promise<number[]>;
  /** The namespaces holding a project the user is a direct member of. */
  namespacesOfMemberProjects(userId: number): Promise<number[]>;
}
