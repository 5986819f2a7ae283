import type { RepositoryManager } from '../../../storage/git/types.ts';
import type { ProjectRecord } from '../../../storage/types.ts';
import type { Actor } from '../access/permissions.ts';
import type { ProtectedBranchesService } from './protected-branches.ts';
import type { ProtectedTagsService } from './protected-tags.ts';

export interface RefWriteAccessDeps {
  branchRules: Pick<ProtectedBranchesService, 'canPush' | 'canMerge'>;
  tagRules: Pick<ProtectedTagsService, 'canCreate'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
}

/** A branch or a tag, by its short name. */
export interface NamedRef {
  name: string;
  tag: boolean;
}

const BRANCH_PREFIX = 'refs/heads/';
const TAG_PREFIX = 'refs/tags/';

/**
 * Whether a user may update a ref, GitLab's `ref_protected?` turned around: a branch when
 * they may push or merge to it, a tag when they may create it. The protected-branch and
 * protected-tag services answer through the permission module; `update_pipeline` (commit
 * statuses) and the schedule rules take the answer as their `refWritable`.
 */
export class RefWriteAccess {
  constructor(private readonly deps: RefWriteAccessDeps) {}

  async writable(project: ProjectRecord, actor: Actor, ref: NamedRef): Promise<boolean> {
    if (ref.tag) return this.deps.tagRules.canCreate(project, actor, ref.name);
    return (await this.deps.branchRules.canPush(project, actor, ref.name)) || this.deps.branchRules.canMerge(project, actor, ref.name);
  }

  /** A pipeline schedule's ref, which may be written in full or short (see `scheduleRef`). */
  async scheduleRefWritable(project: ProjectRecord, actor: Actor, ref: string): Promise<boolean> {
    return this.writable(project, actor, await this.scheduleRef(project, ref));
  }

  /**
   * What a schedule's ref names, as GitLab's PipelineSchedulePolicy reads it: `refs/heads/x`
   * and `refs/tags/x` say so; a short name is a tag when the repository has such a tag, else a
   * branch (so a short name shared by a branch and a protected tag counts as the tag).
   */
  async scheduleRef(project: ProjectRecord, ref: string): Promise<NamedRef> {
    if (ref.startsWith(BRANCH_PREFIX)) return { name: ref.slice(BRANCH_PREFIX.length), tag: false };
    if (ref.startsWith(TAG_PREFIX)) return { name: ref.slice(TAG_PREFIX.length), tag: true };
    const { repositories } = this.deps;
    const tag = (await repositories.exists(project.id)) && (await repositories.open(project.id).tag(ref)) !== null;
    return { name: ref, tag };
  }
}
