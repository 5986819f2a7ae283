import type { BranchView } from '../../../services/repository/branches.ts';
import { serializeCommit, type CommitJson, type CommitUrlBase } from './commits.ts';

export interface BranchJson {
  name: string;
  merged: boolean;
  protected: boolean;
  default: boolean;
  developers_can_push: boolean;
  developers_can_merge: boolean;
  can_push: boolean;
  web_url: string;
  commit: CommitJson;
}

export function serializeBranch(view: BranchView, base: CommitUrlBase): BranchJson {
  const { protection } = view;
  return {
    name: view.branch.name,
    merged: view.merged,
    protected: protection !== null,
    default: view.isDefault,
    developers_can_push: protection?.push_access_level === 30,
    developers_can_merge: protection?.merge_access_level === 30,
    can_push: view.canPush,
    web_url: `${base.externalUrl}/${base.projectFullPath}/-/tree/${view.branch.name}`,
    commit: serializeCommit(view.branch.commit, base),
  };
}
