import type { RefPolicy } from '../../../storage/git/hooks.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { RefCommand } from './receive-commands.ts';

/** The part of the protected-branches service a push needs (ProtectedBranchesService fits). */
export interface BranchPushRules {
  protectionFor(project: ProjectRecord, branch: string): Promise<unknown>;
  canPush(project: ProjectRecord, actor: UserRecord | null, branch: string): Promise<boolean>;
}

const BRANCH_PREFIX = 'refs/heads/';

/**
 * The policy the pre-receive hook applies: for each ref the push names, whether it is a
 * protected branch and whether this user may push to it. Refs outside refs/heads/ are not
 * protected here (protected tags are not modelled).
 */
export async function computePushPolicy(
  rules: BranchPushRules,
  project: ProjectRecord,
  user: UserRecord,
  commands: readonly RefCommand[],
): Promise<Map<string, RefPolicy>> {
  const policy = new Map<string, RefPolicy>();
  for (const { ref } of commands) {
    if (policy.has(ref)) continue;
    if (!ref.startsWith(BRANCH_PREFIX)) {
      policy.set(ref, 'unprotected');
      continue;
    }
    const branch = ref.slice(BRANCH_PREFIX.length);
    const protection = await rules.protectionFor(project, branch);
    if (protection === null || protection === undefined) policy.set(ref, 'unprotected');
    else policy.set(ref, (await rules.canPush(project, user, branch)) ? 'allowed' : 'denied');
  }
  return policy;
}
