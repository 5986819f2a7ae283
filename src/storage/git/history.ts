import { GantryError, invalidParam } from '../../shared/errors.ts';
import { streamLines } from './blame.ts';
import { readChangedPaths } from './changed-paths.ts';
import { DIFF_OPTIONS, emptyDiff, openDiff, sumNumstat } from './diff.ts';
import { clientOf, heavyIteration, reportingContentErrors } from './heavy.ts';
import { HistoryCache } from './history-cache.ts';
import type { ObjectReader, RepositoryAccess } from './reader.ts';
import { EMPTY_TREE, gitText, runGit, streamGit } from './run.ts';
import type { GitCommit, GitCommitStats, GitComparison, GitContributor, GitDiffOptions, GitDiffStream, GitLogQuery } from './types.ts';
import { isValidLookupPath, normalizeLookupPath } from './validate.ts';

/** How far (in commits) a count may be derived from the last one instead of counted whole. */
const ANCHOR_DISTANCE = 1_000;

/** Walks that need rev-list; the commits themselves are read through cat-file. */
export class History {
  constructor(
    private readonly access: RepositoryAccess,
    private readonly reader: ObjectReader,
  ) {}

  async log(query: GitLogQuery): Promise<GitCommit[]> {
    if (query.limit <= 0) return [];
    const args = await this.walkArguments(query, [`--max-count=${Math.floor(query.limit)}`, `--skip=${Math.max(0, Math.floor(query.offset))}`]);
    if (!args) return [];
    // The walk starts at a resolved commit id, so the same arguments always give the same page.
    const cacheKey = query.all ? null : HistoryCache.key(this.access.gitDir, args.join('\0'));
    let ids = cacheKey === null ? undefined : this.access.history?.logPages.get(cacheKey);
    if (ids === undefined) {
      ids = (await gitText(this.access.gitDir, args)).split('\n').filter(Boolean);
      if (cacheKey !== null) this.access.history?.logPages.set(cacheKey, ids);
    }
    return this.reader.commitList(ids);
  }

  async newCommits(tip: string, excluding: readonly string[], limit: number): Promise<GitCommit[]> {
    return this.reader.commitList(await this.newCommitIds(tip, excluding, limit));
  }

  async newCommitIds(tip: string, excluding: readonly string[], limit: number): Promise<string[]> {
    const tipId = await this.reader.resolveCommit(tip);
    if (!tipId || limit <= 0) return [];
    const excludedIds = (await Promise.all(excluding.map((revision) => this.reader.resolveCommit(revision)))).filter((id): id is string => id !== null);
    const args = ['rev-list', `--max-count=${Math.floor(limit)}`, tipId, ...excludedIds.map((id) => `^${id}`), '--'];
    return (await gitText(this.access.gitDir, args, { lowPriority: true })).split('\n').filter(Boolean);
  }

  async countCommits(query: Omit<GitLogQuery, 'offset' | 'limit'>): Promise<number> {
    const start = query.all ? null : await this.reader.resolveCommit(query.ref ?? 'HEAD');
    if (!query.all && start === null) return 0;
    const cacheKey = start === null ? null : HistoryCache.key(this.access.gitDir, start, query.path, query.since, query.until, query.author, query.firstParent ? 'first-parent' : undefined);
    const cached = cacheKey === null ? undefined : this.access.history?.counts.get(cacheKey);
    if (cached !== undefined) return cached;
    // A reachability bitmap (written by housekeeping's gc) answers plain counts at once.
    const plain = query.path === undefined && query.since === undefined && query.until === undefined && query.author === undefined && query.firstParent !== true;
    let count = plain && start !== null ? await this.countFromAnchor(start) : null;
    if (count === null) {
      const args = await this.walkArguments(start === null ? query : { ...query, ref: start }, plain ? ['--count', '--use-bitmap-index'] : ['--count']);
      if (!args) return 0;
      count = Number.parseInt((await gitText(this.access.gitDir, args)).trim(), 10) || 0;
    }
    if (cacheKey !== null) this.access.history?.counts.set(cacheKey, count);
    if (plain && start !== null) this.access.history?.countAnchors.set(this.access.gitDir, { id: start, count });
    return count;
  }

  /**
   * The plain count of `start` derived from the last plain count taken in this repository,
   * when one history contains the other and they are close (a push moved the branch a few
   * commits, or an older commit of it): one capped walk of the symmetric difference, so
   * distant or diverged commits fall back to the full count after a bounded walk.
   */
  private async countFromAnchor(start: string): Promise<number | null> {
    const anchor = this.access.history?.countAnchors.get(this.access.gitDir);
    if (!anchor || anchor.id === start) return anchor?.count ?? null;
    // One walk of the symmetric difference: "<only behind the anchor>\t<only behind start>".
    // The anchor may be gone (a repository replaced, objects pruned): then count in full.
    const output = await gitText(this.access.gitDir, ['rev-list', '--left-right', '--count', `--max-count=${ANCHOR_DISTANCE}`, `${anchor.id}...${start}`]).catch(() => null);
    const [removed, added] = (output ?? '').trim().split('\t').map((part) => Number.parseInt(part, 10));
    if (removed === undefined || added === undefined || Number.isNaN(removed) || Number.isNaN(added)) return null;
    if (removed + added >= ANCHOR_DISTANCE) return null;
    if (removed === 0) return anchor.count + added;
    if (added === 0) return anchor.count - removed;
    return null;
  }

  async lastCommitFor(revision: string, path: string, options: { pathspec?: boolean } = {}): Promise<GitCommit | null> {
    const start = await this.reader.resolveCommit(revision);
    if (start === null) return null;
    const pathspec = options.pathspec === true;
    const cacheKey = HistoryCache.key(this.access.gitDir, start, path, pathspec ? 'pathspec' : undefined);
    const cached = this.access.history?.lastCommits.get(cacheKey);
    if (cached !== undefined) return cached;
    const [commit] = await this.log({ ref: start, path, pathspec, offset: 0, limit: 1 });
    this.access.history?.lastCommits.set(cacheKey, commit ?? null);
    return commit ?? null;
  }

  /** Added and deleted lines of a commit, summed as git writes them (no limits: GitLab counts every file). */
  async commitStats(id: string): Promise<GitCommitStats> {
    const commit = await this.reader.commit(id);
    if (!commit) return { additions: 0, deletions: 0, total: 0 };
    const args = ['diff', '--numstat', '-z', ...DIFF_OPTIONS, commit.parent_ids[0] ?? EMPTY_TREE, commit.id];
    return reportingContentErrors(this.access, 'stats', () => sumNumstat(streamGit(this.access.gitDir, args)));
  }

  /** Heavy: git runs in a work slot until the diff has been read or closed. Expanded unless told otherwise. */
  async commitDiff(id: string, options: GitDiffOptions = { expanded: true }): Promise<GitDiffStream> {
    const commit = await this.reader.commit(id);
    if (!commit) return emptyDiff();
    return this.openDiff(commit.parent_ids[0] ?? EMPTY_TREE, commit.id, options.expanded);
  }

  /**
   * Paths whose content differs between two commits, old and new names of renames alike
   * (`git diff --name-only`), at most `limit` of them; null when either side is not a commit.
   */
  async changedPaths(from: string, to: string, limit = Number.POSITIVE_INFINITY): Promise<string[] | null> {
    const [fromId, toId] = await Promise.all([this.reader.resolveCommit(from), this.reader.resolveCommit(to)]);
    if (!fromId || !toId) return null;
    return readChangedPaths(this.access.gitDir, fromId, toId, limit);
  }

  /**
   * GitLab's `modified_paths_since`: the paths changed from the merge base of `base` and
   * `history` to `to` (`history` is `to` but where `to` stands for a commit it has no history
   * of), at most `limit`; none without a merge base (unrelated histories), null when a side
   * is not a commit.
   */
  async changedPathsSince(base: string, history: string, to: string, limit: number): Promise<string[] | null> {
    const [baseId, historyId, toId] = await Promise.all([base, history, to].map((revision) => this.reader.resolveCommit(revision)));
    if (!baseId || !historyId || !toId) return null;
    const mergeBase = await this.mergeBase(baseId, historyId);
    return mergeBase === null ? [] : readChangedPaths(this.access.gitDir, mergeBase, toId, limit);
  }

  /** Heavy: the walk and then the diff (until it has been read or closed) hold one work slot. */
  async compare(from: string, to: string, straight: boolean): Promise<GitComparison> {
    const [fromId, toId] = await Promise.all([this.reader.resolveCommit(from), this.reader.resolveCommit(to)]);
    if (!fromId || !toId) throw new GantryError('GANTRY_E_REF_NOT_FOUND');
    const client = clientOf(this.access);
    const slot = await this.access.work.acquire(client);
    try {
      const mergeBase = await this.mergeBase(fromId, toId);
      const walk = await gitText(this.access.gitDir, ['rev-list', toId, `^${fromId}`], { lowPriority: true, signal: client.signal });
      const commits = await this.reader.commitList(walk.split('\n').filter(Boolean));
      const diffs = await reportingContentErrors(this.access, 'compare', () =>
        openDiff(this.access, straight ? fromId : (mergeBase ?? fromId), toId, { expanded: false, slot }),
      );
      return { commits, diffs, mergeBase };
    } catch (error) {
      slot.release();
      throw error;
    }
  }

  /** The tree diff between two commits in a work slot of its own. */
  private async openDiff(from: string, to: string, expanded: boolean): Promise<GitDiffStream> {
    return reportingContentErrors(this.access, 'diff', async () => {
      const slot = await this.access.work.acquire(clientOf(this.access));
      return openDiff(this.access, from, to, { expanded, slot });
    });
  }

  /** The best common ancestor of `first` and (a merge of) `others`; all are resolved object ids. */
  async mergeBase(first: string, ...others: string[]): Promise<string | null> {
    const result = await runGit(this.access.gitDir, ['merge-base', first, ...others], { allowedExitCodes: [1] });
    return result.exitCode === 0 ? result.stdout.toString('utf8').trim() : null;
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const [a, b] = await Promise.all([this.reader.resolveCommit(ancestor), this.reader.resolveCommit(descendant)]);
    if (!a || !b) return false;
    const result = await runGit(this.access.gitDir, ['merge-base', '--is-ancestor', a, b], { allowedExitCodes: [1] });
    return result.exitCode === 0;
  }

  async mergedBranches(target: string): Promise<string[]> {
    const id = await this.reader.resolveCommit(target);
    if (!id) return [];
    const output = await gitText(this.access.gitDir, ['for-each-ref', `--merged=${id}`, '--format=%(objectname) %(refname:strip=2)', 'refs/heads/']);
    // A branch at `target`'s own commit is not merged into it (GitLab's merged branch names).
    return output
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith(`${id} `))
      .map((line) => line.slice(line.indexOf(' ') + 1));
  }

  /** Branches and tags whose history contains the commit `id`, by kind then name. */
  async refsContaining(id: string): Promise<Array<{ type: 'branch' | 'tag'; name: string }>> {
    const output = await gitText(this.access.gitDir, ['for-each-ref', `--contains=${id}`, '--format=%(refname)', 'refs/heads/', 'refs/tags/']);
    return output
      .split('\n')
      .filter(Boolean)
      .map((ref) => (ref.startsWith('refs/heads/') ? { type: 'branch' as const, name: ref.slice(11) } : { type: 'tag' as const, name: ref.slice(10) }));
  }

  /**
   * Authors by commit count (like `shortlog -sne`) with their added and deleted lines, summed
   * as git writes its log (memory grows with the authors, not the history). Heavy: a
   * whole-history walk with diffs, in a work slot.
   */
  async contributors(ref?: string): Promise<GitContributor[]> {
    const id = await this.reader.resolveCommit(ref ?? 'HEAD');
    if (!id) return [];
    const args = ['log', '--no-renames', '--numstat', '--format=%x1e%aN%x1f%aE', id];
    const signal = clientOf(this.access).signal;
    const batches = heavyIteration(this.access, 'contributors', () => streamLines(streamGit(this.access.gitDir, args, { lowPriority: true, signal })));
    const byAuthor = new Map<string, GitContributor>();
    let current: GitContributor | null = null;
    for await (const lines of batches) {
      for (const line of lines) {
        if (line.startsWith('\x1e')) {
          const [name = '', email = ''] = line.slice(1).split('\x1f');
          const key = `${name}\x1f${email.toLowerCase()}`;
          current = byAuthor.get(key) ?? { name, email, commits: 0, additions: 0, deletions: 0 };
          current.commits += 1;
          byAuthor.set(key, current);
          continue;
        }
        const match = /^(\d+)\t(\d+)\t/.exec(line);
        if (!match || current === null) continue;
        current.additions += Number(match[1]);
        current.deletions += Number(match[2]);
      }
    }
    return [...byAuthor.values()].sort((a, b) => b.commits - a.commits || a.name.localeCompare(b.name));
  }

  /** rev-list arguments for a query, or null when its ref does not resolve (empty repository). */
  private async walkArguments(query: Omit<GitLogQuery, 'offset' | 'limit'>, extra: string[]): Promise<string[] | null> {
    const args = ['rev-list', ...extra];
    if (query.since !== undefined) args.push(`--since=${isoDate(query.since, 'since')}`);
    if (query.until !== undefined) args.push(`--until=${isoDate(query.until, 'until')}`);
    // The author's text as it is: no pattern from user input reaches git's regex engine.
    if (query.author !== undefined) args.push('--fixed-strings', `--author=${query.author}`);
    if (query.firstParent === true) args.push('--first-parent');
    if (query.order === 'topo') args.push('--topo-order');
    if (query.all) {
      args.push('--branches', '--tags');
    } else {
      const id = await this.reader.resolveCommit(query.ref ?? 'HEAD');
      if (!id) return null;
      args.push(id);
    }
    args.push('--');
    if (query.path !== undefined) {
      const path = normalizeLookupPath(query.path);
      if (!isValidLookupPath(path)) return null;
      // A literal path: no pathspec magic (":(glob)...") from user input; a pathspec's wildcards
      // match, its magic still does not.
      if (path !== '') args.push(query.pathspec === true && !path.startsWith(':') ? path : `:(literal)${path}`);
    }
    return args;
  }
}

function isoDate(value: string, name: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) throw invalidParam(name);
  // "@<seconds> +0000": git's raw date form, exact to the second whatever the locale.
  return `@${Math.floor(time / 1000)} +0000`;
}
