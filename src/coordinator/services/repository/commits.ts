import { GantryError } from '../../../shared/errors.ts';
import type { GitClient, GitCommit, GitCommitStats, GitFileDiff, GitLogQuery, GitRepository } from '../../../storage/git/types.ts';
import type { CoordinatorContext } from '../../context.ts';
import type { CommitUrlBase, LastPipelineJson } from '../../http/serializers/commits.ts';
import type { UserRecord } from '../../../storage/types.ts';
import type { Actor } from '../permissions.ts';
import { RepositoryAccess, type ReadableRepository } from './access.ts';
import { isInsideRepository, refuseTraversal } from './paths.ts';
import { RepositoryWriter, type CommitWrite } from './writes.ts';

export interface CommitListQuery {
  refName?: string;
  since?: string;
  until?: string;
  path?: string;
  all: boolean;
}

export interface Page {
  offset: number;
  limit: number;
}

/**
 * The pipeline shown as a commit's last_pipeline (and its status). Null until the pipelines
 * area supplies a lookup through CommitsService's constructor.
 */
export type LastPipelineLookup = (projectId: number, sha: string) => Promise<LastPipelineJson | null>;

export const noPipelines: LastPipelineLookup = async () => null;

/** `/projects/:id/repository/commits...`: history, single commits, diffs, commit creation, cherry-pick and revert. */
export class CommitsService {
  readonly access: RepositoryAccess;
  private readonly writer: RepositoryWriter;

  constructor(
    private readonly context: CoordinatorContext,
    private readonly lastPipeline: LastPipelineLookup = noPipelines,
  ) {
    this.access = new RepositoryAccess(context);
    this.writer = new RepositoryWriter(context, this.access);
  }

  urls(target: ReadableRepository): CommitUrlBase {
    return { externalUrl: this.context.config.externalUrl, projectFullPath: target.fullPath };
  }

  async list(target: ReadableRepository, query: CommitListQuery, page: Page): Promise<{ items: GitCommit[]; total: number }> {
    refuseTraversal('path', query.path);
    const repository = target.repository;
    if (!repository || (query.all && (await repository.isEmpty()))) return { items: [], total: 0 };
    if (query.path !== undefined && !isInsideRepository(query.path)) return { items: [], total: 0 };
    const ref = query.all ? undefined : (query.refName ?? (await repository.defaultBranch()) ?? undefined);
    if (!query.all && ref === undefined) return { items: [], total: 0 };
    const startId = ref === undefined ? undefined : await repository.resolveCommit(ref);
    if (startId === null) return { items: [], total: 0 };
    // The walk and the count start from the resolved id: neither resolves the ref again.
    const filter: Omit<GitLogQuery, 'offset' | 'limit'> = { ref: startId, path: query.path, since: query.since, until: query.until, all: query.all };
    const [items, total] = await Promise.all([repository.log({ ...filter, ...page }), repository.countCommits(filter)]);
    return { items, total };
  }

  async statsFor(target: ReadableRepository, commits: readonly GitCommit[]): Promise<GitCommitStats[]> {
    const repository = this.requireRepository(target);
    return Promise.all(commits.map((commit) => repository.commitStats(commit.id)));
  }

  /** A commit by SHA, branch or tag; GANTRY_E_COMMIT_NOT_FOUND otherwise. */
  async find(target: ReadableRepository, sha: string): Promise<GitCommit> {
    const commit = target.repository ? await target.repository.commit(sha) : null;
    if (!commit) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    return commit;
  }

  async detail(target: ReadableRepository, commit: GitCommit, withStats: boolean) {
    const stats = withStats ? await this.requireRepository(target).commitStats(commit.id) : null;
    return { projectId: target.project.id, stats, lastPipeline: await this.lastPipeline(target.project.id, commit.id) };
  }

  /** Branches and/or tags containing the commit (`/commits/:sha/refs`). */
  async refs(target: ReadableRepository, sha: string, type: 'branch' | 'tag' | 'all'): Promise<Array<{ type: 'branch' | 'tag'; name: string }>> {
    const commit = await this.find(target, sha);
    const refs = await this.requireRepository(target).refsContaining(commit.id);
    return type === 'all' ? refs : refs.filter((ref) => ref.type === type);
  }

  async diff(target: ReadableRepository, sha: string): Promise<GitFileDiff[]> {
    const commit = await this.find(target, sha);
    return this.requireRepository(target).commitDiff(commit.id);
  }

  async create(projectRef: string, actor: UserRecord, write: CommitWrite): Promise<{ target: ReadableRepository; commit: GitCommit }> {
    const target = await this.access.forWrite(projectRef, actor);
    const { commit } = await this.writer.commit(target, write);
    return { target, commit };
  }

  /** `cherry_pick` (the commit's changes) or `revert` (their inverse) onto `branch`. */
  async replay(mode: 'cherry_pick' | 'revert', projectRef: string, actor: UserRecord, sha: string, branch: string): Promise<{ target: ReadableRepository; commit: GitCommit }> {
    const target = await this.access.forWrite(projectRef, actor);
    await this.writer.assertCanPush(target, branch);
    const source = await this.find(target, sha);
    const repository = this.requireRepository(target);
    const tip = await repository.branch(branch);
    if (!tip) throw new GantryError('GANTRY_E_BRANCH_NOT_FOUND');
    const committer = { name: actor.name, email: actor.email };
    const commit = mode === 'cherry_pick' ? await repository.cherryPick(source.id, branch, committer) : await repository.revert(source.id, branch, committer);
    await this.writer.afterBranchWrite(target, repository, branch, tip.commit.id, commit.id);
    return { target, commit };
  }

  /** `client` is what heavy git work (diffs) queues under. */
  async readable(projectRef: string, actor: Actor, client?: GitClient): Promise<ReadableRepository> {
    return this.access.forRead(projectRef, actor, client);
  }

  private requireRepository(target: ReadableRepository): GitRepository {
    if (!target.repository) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    return target.repository;
  }
}
