/**
 * What `only`/`except`, `rules` and `workflow:rules` test: refs, sources, expressions,
 * changed paths and existing files. One instance per compile (it caches the file list).
 */
import { GantryError } from '../shared/errors.ts';
import { expressionIsTrue } from './expression/index.ts';
import { fabricateRegexp } from './expression/regexp.ts';
import type { ChangesClause } from './job-config.ts';
import type { CompileContext, RefType } from './model.ts';
import { expandExisting } from './nested-expansion.ts';
import { anyChangeMatches, CHANGED_PATHS_NEEDED, FileIndex, isExactGlob } from './path-clauses.ts';

/** GitLab's `Rules::Rule::Clause::ParseError`: a clause that cannot be evaluated (a `compare_to` naming no commit). */
export class RuleClauseError extends GantryError {
  constructor(message: string) {
    super('GANTRY_E_CI_CONFIG_INVALID', message);
  }
}

const COMPARE_TO_INVALID = 'rules:changes:compare_to is not a valid ref';

const SOURCE_PLURALS: Record<string, string> = {
  push: 'pushes',
  trigger: 'triggers',
  schedule: 'schedules',
  pipeline: 'pipelines',
  parent_pipeline: 'parent_pipelines',
  chat: 'chats',
  merge_request_event: 'merge_requests',
  external_pull_request_event: 'external_pull_requests',
};

export class ConditionContext {
  private fileIndex: Promise<FileIndex> | null = null;
  /** Changed paths since each `compare_to` (its expanded text): rules often share one. */
  private readonly comparisons = new Map<string, Promise<string[] | null>>();

  constructor(
    private readonly context: CompileContext,
    readonly maxExpressionTokens: number,
  ) {}

  get ref(): string {
    return this.context.ref;
  }

  get refType(): RefType {
    return this.context.refType;
  }

  /** One `only:refs`/`except:refs` pattern (reference §2.2). */
  refMatches(pattern: string): boolean {
    const { context } = this;
    let refPart = pattern;
    if (!pattern.startsWith('/') && pattern.includes('@')) {
      const at = pattern.indexOf('@');
      if (pattern.slice(at + 1) !== context.project.path) return false;
      refPart = pattern.slice(0, at);
    }
    if (refPart === 'tags' && context.refType === 'tag') return true;
    if (refPart === 'branches' && context.refType === 'branch' && context.source !== 'merge_request_event') return true;
    if (refPart === context.source || refPart === SOURCE_PLURALS[context.source]) return true;
    // GitLab matches patterns only in branch and tag pipelines; a merge request's is compared with its ref path.
    if (context.mergeRequest) return refPart === context.mergeRequest.refPath;
    const regexp = fabricateRegexp(refPart);
    return regexp ? regexp.test(context.ref) : refPart === context.ref;
  }

  expressionTrue(expression: string, lookup: (name: string) => string | undefined): boolean {
    return expressionIsTrue(expression, lookup, this.maxExpressionTokens);
  }

  /** `changes` is true whenever the changed paths are not known (tags, schedules, web runs...). */
  changesMatch(globs: readonly string[]): boolean {
    const { changedPaths, source, refType } = this.context;
    if (changedPaths === null || changedPaths === undefined) return true;
    if (refType === 'tag' || (source !== 'push' && source !== 'merge_request_event')) return true;
    return anyChangeMatches(globs, changedPaths);
  }

  /**
   * A rule's `changes`, as GitLab's `Rules::Rule::Clause::Changes`: its paths and `compare_to`
   * with the variables that are set expanded (nested), the others left as written. With
   * `compare_to`, in any pipeline, the paths changed since its merge base with the pipeline's
   * commit; a ref naming no commit is a RuleClauseError.
   */
  async changesClauseMatch(clause: ChangesClause, lookup: (name: string) => string | undefined): Promise<boolean> {
    const variable = setVariable(lookup);
    const globs = clause.paths.map((path) => expandExisting(path, variable));
    if (clause.compareTo === null) return this.changesMatch(globs);
    const reader = this.context.files;
    if (!reader.changedPathsSince) return true;
    const ref = expandExisting(clause.compareTo, variable);
    let changed = this.comparisons.get(ref);
    if (changed === undefined) {
      changed = reader.changedPathsSince(ref, CHANGED_PATHS_NEEDED);
      this.comparisons.set(ref, changed);
    }
    const paths = await changed;
    if (paths === null) throw new RuleClauseError(COMPARE_TO_INVALID);
    return anyChangeMatches(globs, paths);
  }

  /**
   * A rule's `exists`, as GitLab's `Rules::Rule::Clause::Exists` since 15.6: its paths with the
   * variables that are set expanded (nested), the others left as written.
   */
  async existsMatch(written: readonly string[], lookup: (name: string) => string | undefined): Promise<boolean> {
    const variable = setVariable(lookup);
    const globs = written.map((path) => expandExisting(path, variable));
    const reader = this.context.files;
    if (reader.listFiles) {
      this.fileIndex ??= reader.listFiles().then((files) => new FileIndex(files));
      return (await this.fileIndex).anyExists(globs);
    }
    for (const glob of globs) {
      if (!isExactGlob(glob)) continue;
      if ((await reader.readFile(glob.replace(/^\.?\//, ''))) !== null) return true;
    }
    return false;
  }
}

function setVariable(lookup: (name: string) => string | undefined): (name: string) => { value: string } | undefined {
  return (name) => {
    const value = lookup(name);
    return value === undefined ? undefined : { value };
  };
}
