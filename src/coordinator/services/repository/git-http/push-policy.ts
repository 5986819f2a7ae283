import type { RefPolicy } from '../../../../storage/git/hooks.ts';
import type { ProjectRecord, UserRecord } from '../../../../storage/types.ts';
import { branchNameProblem, tagNameProblem, type RefNameProblem } from '../ref-name-rules.ts';
import type { RefCommand } from './receive-commands.ts';

/** The part of the protected-branches service a push needs (ProtectedBranchesService fits). */
export interface BranchPushRules {
  protectionFor(project: ProjectRecord, branch: string): Promise<unknown>;
  canPush(project: ProjectRecord, actor: UserRecord | null, branch: string): Promise<boolean>;
  /** Whether the branch's rules let those who may push also force push; never when absent. */
  allowsForcePush?(project: ProjectRecord, branch: string): Promise<boolean>;
}

/** The part of the protected-tags service a push needs (ProtectedTagsService fits). */
export interface TagPushRules {
  protectionFor(project: ProjectRecord, tag: string): Promise<unknown>;
  canCreate(project: ProjectRecord, actor: UserRecord | null, tag: string): Promise<boolean>;
  canDelete(project: ProjectRecord, actor: UserRecord | null, tag: string): Promise<boolean>;
}

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';
const isZero = (id: string): boolean => /^0+$/.test(id);

/**
 * The policy the pre-receive hook applies: for each ref the push names, a branch or tag name
 * GitLab refuses (anything but a deletion; ref-name-rules.ts), whether it is a protected
 * branch and whether this user may push to it, or which protected-tag change is refused
 * (creating without the level, moving, deleting without Maintainer). Other refs are
 * unprotected; so are tags when no tag rules are given.
 */
export async function computePushPolicy(
  rules: BranchPushRules,
  project: ProjectRecord,
  user: UserRecord,
  commands: readonly RefCommand[],
  tagRules?: TagPushRules,
): Promise<Map<string, RefPolicy>> {
  const policy = new Map<string, RefPolicy>();
  for (const command of commands) {
    const { ref } = command;
    if (policy.has(ref)) continue;
    const refusedName = isZero(command.after) ? null : nameRefusal(ref);
    if (refusedName) {
      policy.set(ref, refusedName);
    } else if (ref.startsWith(BRANCH_PREFIX)) {
      const branch = ref.slice(BRANCH_PREFIX.length);
      const protection = await rules.protectionFor(project, branch);
      if (protection === null || protection === undefined) policy.set(ref, 'unprotected');
      else if (!(await rules.canPush(project, user, branch))) policy.set(ref, 'denied');
      else policy.set(ref, (await rules.allowsForcePush?.(project, branch)) ? 'allowed-force' : 'allowed');
    } else if (ref.startsWith(TAG_PREFIX) && tagRules) {
      policy.set(ref, await tagPolicy(tagRules, project, user, command, ref.slice(TAG_PREFIX.length)));
    } else {
      policy.set(ref, 'unprotected');
    }
  }
  return policy;
}

const NAME_REFUSALS: { branch: Record<RefNameProblem, RefPolicy>; tag: Record<RefNameProblem, RefPolicy> } = {
  branch: { invalid: 'branch-name-invalid', prohibited: 'branch-name-invalid', 'sha-like': 'branch-name-sha' },
  tag: { invalid: 'tag-name-invalid', prohibited: 'tag-name-invalid', 'sha-like': 'tag-name-sha' },
};

/** The refusal of a branch or tag name GitLab's push checks refuse, or null. */
function nameRefusal(ref: string): RefPolicy | null {
  if (ref.startsWith(BRANCH_PREFIX)) {
    const problem = branchNameProblem(ref.slice(BRANCH_PREFIX.length));
    return problem && NAME_REFUSALS.branch[problem];
  }
  if (ref.startsWith(TAG_PREFIX)) {
    const problem = tagNameProblem(ref.slice(TAG_PREFIX.length));
    return problem && NAME_REFUSALS.tag[problem];
  }
  return null;
}

async function tagPolicy(rules: TagPushRules, project: ProjectRecord, user: UserRecord, command: RefCommand, tag: string): Promise<RefPolicy> {
  const protection = await rules.protectionFor(project, tag);
  if (protection === null || protection === undefined) return 'unprotected';
  if (isZero(command.after)) return (await rules.canDelete(project, user, tag)) ? 'unprotected' : 'tag-delete';
  if (isZero(command.before)) return (await rules.canCreate(project, user, tag)) ? 'unprotected' : 'tag-create';
  return 'tag-update';
}
