import type { ProjectFileResult, RepositoryReader } from '../../../../ci/model.ts';
import type { GitRepository, RepositoryManager } from '../../../../storage/git/types.ts';
import type { ProjectRecord, UserRecord } from '../../../../storage/types.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { Permissions } from '../../access/permissions.ts';

/** Files larger than this are not read as configuration (the compiler refuses far smaller files anyway). */
const MAX_CONFIG_FILE_BYTES = 4 * 1024 * 1024;

export interface GitReaderDeps {
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  lookup: Pick<Lookup, 'findProject'>;
  permissions: Pick<Permissions, 'canReadRepository'>;
}

/** Reads one file of a repository at a commit; null when absent, not a file, or too large. */
export async function readTextAt(repository: GitRepository, sha: string, path: string): Promise<string | null> {
  const blob = await repository.blobAt(sha, path.replace(/^\/+/, ''));
  if (!blob || blob.size > MAX_CONFIG_FILE_BYTES) return null;
  const content = await repository.readBlob(blob.id);
  return content === null ? null : content.toString('utf8');
}

/**
 * Where `rules:changes:compare_to` finds the commit it names, and the commit whose history the
 * pipeline's commit continues (their merge base is the diff's base). By default the project's
 * repository and the pipeline's commit; `runner exec` gives the user's own repository and HEAD,
 * its snapshot commit having no parent.
 */
export interface CompareRefs {
  resolve(ref: string): Promise<string | null>;
  /** null: no history (a repository without commits), so nothing has changed since any ref. */
  history: string | null;
}

/**
 * The compiler's view of a project's repository at the pipeline's sha: its files, its file
 * list (`rules:exists`), the paths changed since a ref (`rules:changes:compare_to`), files of other projects the pipeline's user may read
 * (`include:project`), and last commits for `cache:key:files`.
 */
export class GitRepositoryReader implements RepositoryReader {
  private fileList: Promise<string[]> | undefined;

  constructor(
    private readonly deps: GitReaderDeps,
    private readonly repository: GitRepository,
    private readonly sha: string,
    /** Whose rights include:project follows (null: public projects only). */
    private readonly user: UserRecord | null,
    private readonly compareRefs?: CompareRefs,
  ) {}

  readFile(path: string): Promise<string | null> {
    return readTextAt(this.repository, this.sha, path);
  }

  listFiles(): Promise<string[]> {
    this.fileList ??= this.repository.tree(this.sha, '', true).then((entries) => (entries ?? []).filter((entry) => entry.type === 'blob').map((entry) => entry.path));
    return this.fileList;
  }

  async readProjectFile(projectPath: string, ref: string | undefined, path: string): Promise<ProjectFileResult> {
    const project = await this.deps.lookup.findProject(projectPath);
    if (!project || project.pending_delete || !(await this.deps.permissions.canReadRepository(project, this.user))) return { status: 'project-not-found' };
    if (!(await this.deps.repositories.exists(project.id))) return { status: 'ref-not-found', ref: ref ?? project.default_branch ?? '' };
    const repository = this.deps.repositories.open(project.id);
    const revision = ref ?? (await defaultRevision(repository, project));
    const sha = revision === null ? null : await repository.resolveCommit(revision);
    if (sha === null) return { status: 'ref-not-found', ref: revision ?? '' };
    const content = await readTextAt(repository, sha, path);
    return content === null ? { status: 'file-not-found' } : { status: 'found', content };
  }

  /** The paths changed since the merge base of `ref` and the pipeline's commit; null when `ref` names no commit. */
  async changedPathsSince(ref: string, limit: number): Promise<string[] | null> {
    const base = this.compareRefs ? await this.compareRefs.resolve(ref) : await this.repository.resolveCommit(ref);
    if (base === null) return null;
    const history = this.compareRefs ? this.compareRefs.history : this.sha;
    if (history === null) return [];
    return (await this.repository.changedPathsSince(base, history, this.sha, limit)) ?? [];
  }

  async lastCommitFor(paths: string[]): Promise<string | null> {
    let newest: { id: string; date: string } | null = null;
    for (const path of paths) {
      // A pathspec, as GitLab's last_commit_for_path asks Gitaly for it: `**/yarn.lock` matches.
      const commit = await this.repository.lastCommitFor(this.sha, path, { pathspec: true });
      if (commit && (newest === null || commit.committer.date > newest.date)) newest = { id: commit.id, date: commit.committer.date };
    }
    return newest?.id ?? null;
  }
}

async function defaultRevision(repository: GitRepository, project: ProjectRecord): Promise<string | null> {
  return (await repository.defaultBranch()) ?? project.default_branch;
}
