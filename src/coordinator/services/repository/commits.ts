import { GantryError } from '../../../shared/errors.ts';
import type { GitClient, GitCommit, GitCommitStats, GitFileDiff, GitLogQuery, GitRepository } from '../../../storage/git/types.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { Actor } from '../access/permissions.ts';
import type { ReadableRepository, RepositoryAccess } from './access.ts';
import { pageOfList, pageOfStream, type Page, type Paged } from './pages.ts';
import { isInsideRepository, refuseTraversal } from './paths.ts';
import type { CommitWrite, RepositoryWriter } from './writes.ts';

export interface CommitListQuery {
  refName?: string;
  since?: string;
  until?: string;
  path?: string;
  all: boolean;
  author?: string;
  firstParent?: boolean;
  order?: 'default' | 'topo';
}


export type CommitRefType = 'branch' | 'tag' | 'all';

export interface CommitRef {
  type: 'branch' | 'tag';
  name: string;
}

export interface CommitWithStats {
  commit: GitCommit;
  stats: GitCommitStats | null;
}

export interface CommitWithDetail {
  target: ReadableRepository;
  commit: GitCommit;
  detail: CommitDetail;
}

/** The pipeline summary a commit detail shows. */
export interface LastPipeline {
  id: number;
  ref: string;
  sha: string;
  status: string;
}

/** What a single commit's answer shows besides the commit. */
export interface CommitDetail {
  projectId: number;
  stats: GitCommitStats | null;
  lastPipeline: LastPipeline | null;
}

/**
 * The pipeline shown as a commit's last_pipeline (and its status), as the caller may see it;
 * the CI area supplies it (services/pipelines/last-pipeline.ts), null without one.
 */
export type LastPipelineLookup = (project: ProjectRecord, sha: string, actor: Actor) => Promise<LastPipeline | null>;

export const noPipelines: LastPipelineLookup = async () => null;

export interface CommitsServiceDeps {
  access: Pick<RepositoryAccess, 'forRead' | 'forWrite'>;
  writer: Pick<RepositoryWriter, 'commit' | 'assertCanPush' | 'afterBranchWrite'>;
  lastPipeline?: LastPipelineLookup;
}

/** `/projects/:id/repository/commits...`: history, single commits, diffs, commit creation, cherry-pick and revert. */
export class CommitsService {
  private readonly access: CommitsServiceDeps['access'];
  private readonly writer: CommitsServiceDeps['writer'];
  private readonly lastPipeline: LastPipelineLookup;

  constructor(deps: CommitsServiceDeps) {
    this.access = deps.access;
    this.writer = deps.writer;
    this.lastPipeline = deps.lastPipeline ?? noPipelines;
  }

  /** One page of history, each commit with its stats when `withStats`. */
  async list(projectRef: string, actor: Actor, query: CommitListQuery, page: Page, withStats: boolean): Promise<{ target: ReadableRepository; items: CommitWithStats[]; total: number }> {
    const target = await this.access.forRead(projectRef, actor);
    const { items, total } = await this.history(target, query, page);
    const stats = withStats ? await this.statsFor(target, items) : items.map(() => null);
    return { target, items: items.map((commit, index) => ({ commit, stats: stats[index] ?? null })), total };
  }

  /** A commit by SHA, branch or tag, with its stats when `withStats` and its last pipeline. */
  async get(projectRef: string, actor: Actor, sha: string, withStats: boolean): Promise<CommitWithDetail> {
    const target = await this.access.forRead(projectRef, actor);
    const commit = await this.find(target, sha);
    return { target, commit, detail: await this.detail(target, commit, withStats, actor) };
  }

  private async history(target: ReadableRepository, query: CommitListQuery, page: Page): Promise<{ items: GitCommit[]; total: number }> {
    refuseTraversal('path', query.path);
    const repository = target.repository;
    if (!repository || (query.all && (await repository.isEmpty()))) return { items: [], total: 0 };
    if (query.path !== undefined && !isInsideRepository(query.path)) return { items: [], total: 0 };
    const ref = query.all ? undefined : (query.refName ?? (await repository.defaultBranch()) ?? undefined);
    if (!query.all && ref === undefined) return { items: [], total: 0 };
    const startId = ref === undefined ? undefined : await repository.resolveCommit(ref);
    if (startId === null) return { items: [], total: 0 };
    // The walk and the count start from the resolved id: neither resolves the ref again.
    const filter: Omit<GitLogQuery, 'offset' | 'limit'> = { ref: startId, path: query.path, since: query.since, until: query.until, all: query.all, author: query.author, firstParent: query.firstParent, order: query.order };
    const [items, total] = await Promise.all([repository.log({ ...filter, ...page }), repository.countCommits(filter)]);
    return { items, total };
  }

  private async statsFor(target: ReadableRepository, commits: readonly GitCommit[]): Promise<GitCommitStats[]> {
    const repository = this.requireRepository(target);
    return Promise.all(commits.map((commit) => repository.commitStats(commit.id)));
  }

  /** A commit by SHA, branch or tag; GANTRY_E_COMMIT_NOT_FOUND otherwise. */
  async find(target: ReadableRepository, sha: string): Promise<GitCommit> {
    const commit = target.repository ? await target.repository.commit(sha) : null;
    if (!commit) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    return commit;
  }

  private async detail(target: ReadableRepository, commit: GitCommit, withStats: boolean, actor: Actor): Promise<CommitDetail> {
    const stats = withStats ? await this.requireRepository(target).commitStats(commit.id) : null;
    return { projectId: target.project.id, stats, lastPipeline: await this.lastPipeline(target.project, commit.id, actor) };
  }

  /** Branches and/or tags containing the commit (`/commits/:sha/refs`). */
  async refs(projectRef: string, actor: Actor, sha: string, type: CommitRefType, page: Page): Promise<Paged<CommitRef>> {
    const target = await this.access.forRead(projectRef, actor);
    const commit = await this.find(target, sha);
    const refs = await this.requireRepository(target).refsContaining(commit.id);
    return pageOfList(type === 'all' ? refs : refs.filter((ref) => ref.type === type), page);
  }

  /**
   * One page of the commit's diff under GitLab's diff limits (expanded: only files over the
   * patch limit are cut; the list ends at the totals). `client` is what the diff's git work queues under.
   */
  async diff(projectRef: string, actor: Actor, sha: string, page: Page, client?: GitClient): Promise<Paged<GitFileDiff>> {
    const target = await this.access.forRead(projectRef, actor, client);
    const commit = await this.find(target, sha);
    return pageOfStream(await this.requireRepository(target).commitDiff(commit.id, { expanded: true }), page);
  }

  async create(projectRef: string, actor: UserRecord, write: CommitWrite, withStats: boolean): Promise<CommitWithDetail> {
    const target = await this.access.forWrite(projectRef, actor);
    const { commit } = await this.writer.commit(target, write);
    return { target, commit, detail: await this.detail(target, commit, withStats, actor) };
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

  /** The project's repository when the caller may read it; `client` is what heavy git work queues under. */
  readable(projectRef: string, actor: Actor, client?: GitClient): Promise<ReadableRepository> {
    return this.access.forRead(projectRef, actor, client);
  }

  private requireRepository(target: ReadableRepository): GitRepository {
    if (!target.repository) throw new GantryError('GANTRY_E_COMMIT_NOT_FOUND');
    return target.repository;
  }
}
