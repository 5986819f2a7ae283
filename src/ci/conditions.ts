/**
 * What `only`/`except`, `rules` and `workflow:rules` test: refs, sources, expressions,
 * changed paths and existing files. One instance per compile (it caches the file list).
 */
import { expressionIsTrue } from './expression/index.ts';
import { fabricateRegexp } from './expression/regexp.ts';
import type { CompileContext, RefType } from './model.ts';
import { anyChangeMatches, FileIndex, isExactGlob } from './path-clauses.ts';

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

  async existsMatch(globs: readonly string[]): Promise<boolean> {
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
