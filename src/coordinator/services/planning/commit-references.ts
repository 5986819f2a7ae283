import { ZERO_SHA } from '../../../ci/pipeline-variables.ts';
import type { GitCommit, RepositoryManager } from '../../../storage/git/types.ts';
import type { NotesStore } from '../../../storage/types-notes.ts';
import type { NewTask } from '../../../storage/types-tasks.ts';
import type { UserEmailsStore } from '../../../storage/types-user-emails.ts';
import type { NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { PushEvent } from '../events.ts';
import type { TaskHandler } from '../task-queue.ts';
import { CommitReferenceTargets, type CommitReferenceTargetsDeps, type ReferencedIssue } from './commit-references-targets.ts';
import { parseCommitReferences, type IssueReference } from './reference-parser.ts';
import { projectFullPath } from '../namespaces/project-full-path.ts';

/** Task kind of a branch push's issue references (payload: CommitReferencesTask). */
export const COMMIT_REFERENCES_TASK = 'planning.commit-references';
/** Commits of one push whose messages are read (GitLab's PROCESS_COMMIT_LIMIT): the newest ones. */
export const PROCESS_COMMIT_LIMIT = 100;

export interface CommitReferencesTask {
  projectId: number;
  /** refs/heads/…. */
  ref: string;
  before: string;
  after: string;
  userId: number | null;
}

export interface CommitReferencesDeps extends CommitReferenceTargetsDeps {
  queue: { enqueue(task: NewTask): Promise<unknown> };
  projects: Pick<ProjectsStore, 'findById'>;
  users: Pick<UsersStore, 'findById' | 'findByEmail'>;
  /** Secondary addresses: a confirmed one names its user as a commit's author, as GitLab does. */
  emails?: Pick<UserEmailsStore, 'findByEmail'>;
  namespaces: Pick<NamespacesStore, 'findById'>;
  repositories: Pick<RepositoryManager, 'exists' | 'open'>;
  /** The task-comments integration: the user who comments on a push's issues, or null when it is off for the push's branch. */
  taskComments?: { commenterFor(projectId: number, branch: string): Promise<UserRecord | null> };
  /** Where task comments are written, and the instance's URL their commit links start with. */
  comments?: { notes: Pick<NotesStore, 'create'>; externalUrl: string };
}

/** Characters of a commit message a task comment quotes (longer ones are cut with an ellipsis). */
export const TASK_COMMENT_MAX_MESSAGE = 10_000;

/** A push handled by the task-comments integration: who comments, and the comment's opening words. */
interface TaskCommentMode {
  commenter: UserRecord;
  /** "<pusher> pushed to branch <branch> of <project>". */
  opening: string;
}

/**
 * Issue references in pushed commits, as GitLab's ProcessCommitWorker makes them: each issue a
 * new commit names (and its author may see) gets "mentioned in commit …" once; on the default
 * branch, an issue named by a closing phrase is closed by the author (when they may update it)
 * with "closed via commit …" instead. `record` runs before the push is acknowledged and leaves
 * a durable task; the handler may run again (a retry, the same commit on another branch), and
 * the existing notes and the issue's state make every step happen once.
 */
export class CommitReferences {
  private readonly targets: CommitReferenceTargets;
  /** Tasks of one project run one after another in this process, so two never note the same commit at once. */
  private readonly projectTails = new Map<number, Promise<void>>();

  constructor(private readonly deps: CommitReferencesDeps) {
    this.targets = new CommitReferenceTargets(deps);
  }

  async record(push: PushEvent): Promise<void> {
    if (push.after === ZERO_SHA || !push.ref.startsWith('refs/heads/')) return;
    const payload: CommitReferencesTask = { projectId: push.project_id, ref: push.ref, before: push.before, after: push.after, userId: push.user_id };
    await this.deps.queue.enqueue({
      kind: COMMIT_REFERENCES_TASK, payload, maxAttempts: 5, dedupeKey: `${COMMIT_REFERENCES_TASK}:${push.project_id}:${push.ref}:${push.after}`,
    });
  }

  handler(): TaskHandler {
    return (task) => this.serially((task.payload as CommitReferencesTask).projectId, () => this.process(task.payload as CommitReferencesTask));
  }

  /** Processes one push (exported for the handler; runs the same way again without doubling anything). */
  async process(push: CommitReferencesTask): Promise<void> {
    const project = await this.deps.projects.findById(push.projectId);
    if (!project || project.pending_delete || !(await this.deps.repositories.exists(project.id))) return;
    const pusher = push.userId === null ? null : ((await this.deps.users.findById(push.userId)) ?? null);
    const repository = this.deps.repositories.open(project.id);
    const defaultBranch = project.default_branch ?? (await repository.defaultBranch());
    const onDefaultBranch = defaultBranch !== null && push.ref === `refs/heads/${defaultBranch}`;
    const commits = await repository.newCommits(push.after, this.excluded(push, onDefaultBranch ? null : defaultBranch), PROCESS_COMMIT_LIMIT);
    if (commits.length === 0) return;
    const projectPath = await projectFullPath(this.deps.namespaces, project);
    const taskComments = await this.taskCommentMode(project, projectPath, push.ref, pusher);
    // Oldest first, so the notes of one push read in the order its commits were made.
    for (const commit of commits.reverse()) await this.processCommit(project, projectPath, commit, pusher, onDefaultBranch, taskComments);
  }

  private async taskCommentMode(project: ProjectRecord, projectPath: string, ref: string, pusher: UserRecord | null): Promise<TaskCommentMode | null> {
    if (!this.deps.taskComments || !this.deps.comments) return null;
    const branch = ref.slice('refs/heads/'.length);
    const commenter = await this.deps.taskComments.commenterFor(project.id, branch);
    return commenter ? { commenter, opening: `${pusher?.name ?? 'Someone'} pushed to branch ${branch} of ${projectPath}` } : null;
  }

  /** An update reads the commits since `before`; a new branch those not on the default branch; a new default branch its newest. */
  private excluded(push: CommitReferencesTask, defaultBranch: string | null): string[] {
    if (push.before !== ZERO_SHA) return [push.before];
    return defaultBranch === null ? [] : [`refs/heads/${defaultBranch}`];
  }

  private async processCommit(
    project: ProjectRecord, projectPath: string, commit: GitCommit, pusher: UserRecord | null, onDefaultBranch: boolean, taskComments: TaskCommentMode | null,
  ): Promise<void> {
    const references = parseCommitReferences(commit.message);
    if (references.mentioned.length === 0) return;
    const closingKeys = new Set(references.closing.map(referenceKey));
    const author = await this.commitAuthor(commit, pusher);
    const closing = onDefaultBranch ? closingKeys : new Set<string>();
    for (const reference of references.mentioned) {
      // An issue the task comment reaches gets it instead of "mentioned in commit" (one note per commit and issue).
      if (taskComments && (await this.taskComment(taskComments, project, projectPath, commit, reference, closingKeys.has(referenceKey(reference))))) continue;
      if (!author) continue;
      const target = await this.targets.resolve(project, projectPath, reference, author);
      if (!target) continue;
      const commitReference = referenceFrom(target, project, projectPath, commit.id);
      const closes = closing.has(referenceKey(reference)) && (await this.targets.mayClose(target, author));
      if (closes) await this.closeVia(target, author, commitReference);
      else await this.noteOnce(target, author, `mentioned in commit ${commitReference}`);
    }
  }

  /**
   * The task-comments integration's comment (a note by its api_key's user, once per body) on an
   * issue that user may see; a closing reference closes it on any inspected branch when that
   * user may update it. False when the user may not see the issue.
   */
  private async taskComment(mode: TaskCommentMode, project: ProjectRecord, projectPath: string, commit: GitCommit, reference: IssueReference, closes: boolean): Promise<boolean> {
    const comments = this.deps.comments;
    if (!comments) return false;
    const target = await this.targets.resolve(project, projectPath, reference, mode.commenter);
    if (!target) return false;
    const message = commit.message.length > TASK_COMMENT_MAX_MESSAGE ? `${commit.message.slice(0, TASK_COMMENT_MAX_MESSAGE)}…` : commit.message;
    const body = `${mode.opening} ( ${comments.externalUrl}/${projectPath}/-/commit/${commit.id} ): ${message.trimEnd()}`;
    if (!(await this.deps.references.hasIssueComment(target.issue.id, mode.commenter.id, body))) {
      const at = new Date().toISOString();
      await comments.notes.create({
        project_id: target.project.id, noteable_type: 'Issue', noteable_id: target.issue.id, author_id: mode.commenter.id, body, system: false, internal: false, created_at: at, updated_at: at,
      });
    }
    if (closes && (await this.targets.mayClose(target, mode.commenter))) await this.closeVia(target, mode.commenter, referenceFrom(target, project, projectPath, commit.id));
    return true;
  }

  /** The note first, then the close: a retry after either step finishes the other, and a closed issue stays untouched. */
  private async closeVia(target: ReferencedIssue, author: UserRecord, commitReference: string): Promise<void> {
    if (target.issue.state !== 'opened') return;
    await this.noteOnce(target, author, `closed via commit ${commitReference}`);
    await this.deps.references.closeOpenIssue(target.issue.id, author.id, new Date().toISOString());
  }

  private async noteOnce(target: ReferencedIssue, author: UserRecord, body: string): Promise<void> {
    if (await this.deps.references.hasIssueSystemNote(target.issue.id, body)) return;
    await this.deps.systemNotes.add({ type: 'Issue', id: target.issue.id, project_id: target.project.id }, author.id, body);
  }

  /** The user whose primary or confirmed secondary email the commit's author has (an active one), else the pusher. */
  private async commitAuthor(commit: GitCommit, pusher: UserRecord | null): Promise<UserRecord | null> {
    const email = commit.author.email;
    const byEmail = email === '' ? undefined : ((await this.deps.users.findByEmail(email)) ?? (await this.bySecondaryEmail(email)));
    return byEmail && byEmail.state === 'active' ? byEmail : pusher;
  }

  private async bySecondaryEmail(email: string): Promise<UserRecord | undefined> {
    const secondary = await this.deps.emails?.findByEmail(email);
    return secondary && secondary.confirmed_at !== null ? this.deps.users.findById(secondary.user_id) : undefined;
  }

  private serially(projectId: number, work: () => Promise<void>): Promise<void> {
    const previous = this.projectTails.get(projectId) ?? Promise.resolve();
    const run = previous.then(work, work);
    const tail = run.catch(() => undefined);
    this.projectTails.set(projectId, tail);
    void tail.then(() => {
      if (this.projectTails.get(projectId) === tail) this.projectTails.delete(projectId);
    });
    return run;
  }
}

function referenceKey(reference: IssueReference): string {
  return `${reference.projectPath ?? ''}#${reference.iid}`;
}

/**
 * The commit as GitLab names it from the issue's project: the full id within the same project,
 * `project@id` from another project of the same namespace, `group/project@id` from elsewhere.
 */
function referenceFrom(target: ReferencedIssue, commitProject: ProjectRecord, commitProjectPath: string, sha: string): string {
  if (target.project.id === commitProject.id) return sha;
  if (target.project.namespace_id === commitProject.namespace_id) return `${commitProject.path}@${sha}`;
  return `${commitProjectPath}@${sha}`;
}
