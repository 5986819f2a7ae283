import { GantryError, invalidParam } from '../../shared/errors.ts';
import { refuseDangerousPaths } from './content.ts';
import { reportingContentErrors, runHeavy } from './heavy.ts';
import { HistoryCache } from './history-cache.ts';
import { DIFF_OPTIONS, parseNumstat, parseRawPatch } from './diff.ts';
import type { ObjectReader, RepositoryAccess } from './reader.ts';
import { EMPTY_TREE, gitText, runGit } from './run.ts';
import type { GitCommit, GitCommitStats, GitContributor, GitFileDiff, GitLogQuery } from './types.ts';
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

  async countCommits(query: Omit<GitLogQuery, 'offset' | 'limit'>): Promise<number> {
    const start = query.all ? null : await this.reader.resolveCommit(query.ref ?? 'HEAD');
    if (!query.all && start === null) return 0;
    const cacheKey = start === null ? null : HistoryCache.key(this.access.gitDir, start, query.path, query.since, query.until);
    const cached = cacheKey === null ? undefined : this.access.history?.counts.get(cacheKey);
    if (cached !== undefined) return cached;
    // A reachability bitmap (written by housekeeping's gc) answers plain counts at once.
    const plain = query.path === undefined && query.since === undefined && query.until === undefined;
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

  async lastCommitFor(revision: string, path: string): Promise<GitCommit | null> {
    const start = await this.reader.resolveCommit(revision);
    if (start === null) return null;
    const cacheKey = HistoryCache.key(this.access.gitDir, start, path);
    const cached = this.access.history?.lastCommits.get(cacheKey);
    if (cached !== undefined) return cached;
    const [commit] = await this.log({ ref: start, path, offset: 0, limit: 1 });
    this.access.history?.lastCommits.set(cacheKey, commit ?? null);
    return commit ?? null;
  }

  async commitStats(id: string): Promise<GitCommitStats> {
    const commit = await this.reader.commit(id);
    if (!commit) return { additions: 0, deletions: 0, total: 0 };
    const args = ['diff', '--numstat', '-z', ...DIFF_OPTIONS, commit.parent_ids[0] ?? EMPTY_TREE, commit.id];
    const { stdout } = await reportingContentErrors(this.access, 'stats', () => runGit(this.access.gitDir, args));
    return parseNumstat(stdout);
  }

  /** Heavy: runs in a work slot. */
  async commitDiff(id: string): Promise<GitFileDiff[]> {
    const commit = await this.reader.commit(id);
    if (!commit) return [];
    return runHeavy(this.access, 'diff', (signal) => this.diff(commit.parent_ids[0] ?? EMPTY_TREE, commit.id, signal));
  }

  /**
   * Paths whose content differs between two commits, old and new names of renames alike
   * (`git diff --name-only`); null when either side is not a commit.
   */
  async changedPaths(from: string, to: string): Promise<string[] | null> {
    const [fromId, toId] = await Promise.all([this.reader.resolveCommit(from), this.reader.resolveCommit(to)]);
    if (!fromId || !toId) return null;
    const { stdout } = await runGit(this.access.gitDir, ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', fromId, toId], { lowPriority: true });
    return stdout.toString('utf8').split('\0').filter(Boolean);
  }

  /** Heavy: the walk and the diff run in one work slot. */
  async compare(from: string, to: string, straight: boolean): Promise<{ commits: GitCommit[]; diffs: GitFileDiff[]; mergeBase: string | null }> {
    const [fromId, toId] = await Promise.all([this.reader.resolveCommit(from), this.reader.resolveCommit(to)]);
    if (!fromId || !toId) throw new GantryError('GANTRY_E_REF_NOT_FOUND');
    return runHeavy(this.access, 'compare', async (signal) => {
      const mergeBase = await this.mergeBase(fromId, toId);
      const walk = await gitText(this.access.gitDir, ['rev-list', toId, `^${fromId}`], { lowPriority: true, signal });
      const ids = walk.split('\n').filter(Boolean);
      const [commits, diffs] = await Promise.all([this.reader.commitList(ids), this.diff(straight ? fromId : (mergeBase ?? fromId), toId, signal)]);
      return { commits, diffs, mergeBase };
    });
  }

  /** The tree diff between two commits; a path no checkout may create (`.git`, `..`) is a GitContentError. */
  private async diff(from: string, to: string, signal: AbortSignal | undefined): Promise<GitFileDiff[]> {
    const { stdout } = await runGit(this.access.gitDir, ['diff', '--raw', '-p', '-z', ...DIFF_OPTIONS, from, to], { lowPriority: true, signal });
    const diffs = parseRawPatch(stdout);
    refuseDangerousPaths(diffs.flatMap((diff) => [diff.old_path, diff.new_path]));
    return diffs;
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
    const output = await gitText(this.access.gitDir, ['for-each-ref', `--merged=${id}`, '--format=%(refname:strip=2)', 'refs/heads/']);
    return output.split('\n').filter(Boolean);
  }

  /** Branches and tags whose history contains the commit `id`, by kind then name. */
  async refsContaining(id: string): Promise<Array<{ type: 'branch' | 'tag'; name: string }>> {
    const output = await gitText(this.access.gitDir, ['for-each-ref', `--contains=${id}`, '--format=%(refname)', 'refs/heads/', 'refs/tags/']);
    return output
      .split('\n')
      .filter(Boolean)
      .map((ref) => (ref.startsWith('refs/heads/') ? { type: 'branch' as const, name: ref.slice(11) } : { type: 'tag' as const, name: ref.slice(10) }));
  }

  /** Authors by commit count (like `shortlog -sne`) with their added and deleted lines. Heavy: a whole-history walk with diffs. */
  async contributors(ref?: string): Promise<GitContributor[]> {
    const id = await this.reader.resolveCommit(ref ?? 'HEAD');
    if (!id) return [];
    const args = ['log', '--no-renames', '--numstat', '--format=%x1e%aN%x1f%aE', id];
    const output = await runHeavy(this.access, 'contributors', (signal) => gitText(this.access.gitDir, args, { lowPriority: true, signal }));
    const byAuthor = new Map<string, GitContributor>();
    for (const record of output.split('\x1e')) {
      if (!record) continue;
      const [identity = '', ...lines] = record.split('\n');
      const [name = '', email = ''] = identity.split('\x1f');
      const key = `${name}\x1f${email.toLowerCase()}`;
      const contributor = byAuthor.get(key) ?? { name, email, commits: 0, additions: 0, deletions: 0 };
      contributor.commits += 1;
      for (const line of lines) {
        const match = /^(\d+)\t(\d+)\t/.exec(line);
        if (!match) continue;
        contributor.additions += Number(match[1]);
        contributor.deletions += Number(match[2]);
      }
      byAuthor.set(key, contributor);
    }
    return [...byAuthor.values()].sort((a, b) => b.commits - a.commits || a.name.localeCompare(b.name));
  }

  /** rev-list arguments for a query, or null when its ref does not resolve (empty repository). */
  private async walkArguments(query: Omit<GitLogQuery, 'offset' | 'limit'>, extra: string[]): Promise<string[] | null> {
    const args = ['rev-list', ...extra];
    if (query.since !== undefined) args.push(`--since=${isoDate(query.since, 'since')}`);
    if (query.until !== undefined) args.push(`--until=${isoDate(query.until, 'until')}`);
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
      // A literal path: no pathspec magic (":(glob)...") from user input.
      if (path !== '') args.push(`:(literal)${path}`);
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
