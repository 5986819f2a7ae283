import type { GitCommit, GitCommitFileChanges, GitRepository } from '../../../storage/git/types.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';

const ZERO_SHA = '0'.repeat(40);
/** Commits a push's data lists (GitLab's push hooks list 20, newest last). */
export const PUSH_DATA_MAX_COMMITS = 20;
/** Commits counted in `total_commits_count`; a bigger push counts this many. */
export const PUSH_DATA_COUNT_LIMIT = 100;

/** Paths of one commit's `added`, `modified` and `removed` lists together; a bigger commit lists its first this many. */
export const PUSH_DATA_MAX_FILES_PER_COMMIT = 1_000;

/** Characters of each commit message sent (what the reference scanner reads too); a push's data stays bounded. */
export const PUSH_DATA_MAX_MESSAGE = 100_000;

const VISIBILITY_LEVELS = { private: 0, internal: 10, public: 20 } as const;

/** One commit of the push data. */
export type PushDataCommit = {
  id: string;
  message: string;
  title: string;
  timestamp: string;
  url: string;
  author: { name: string; email: string };
  added: string[];
  modified: string[];
  removed: string[];
};

/** The fields integrations read; the rest is passed on as it is (a type alias: it is a Record<string, unknown> too). */
export type PushData = {
  object_kind: 'push' | 'tag_push';
  before: string;
  after: string;
  ref: string;
  user_name: string | null;
  user_username: string | null;
  project: { web_url: string; name: string; path_with_namespace: string; default_branch: string | null; [field: string]: unknown };
  commits: PushDataCommit[];
  total_commits_count: number;
  repository: { name: string; [field: string]: unknown };
  [field: string]: unknown;
};

export interface PushDataInput {
  project: ProjectRecord;
  projectPath: string;
  namespaceName: string;
  externalUrl: string;
  ref: string;
  before: string;
  after: string;
  pusher: UserRecord | null;
}

/**
 * GitLab's push (or tag push) event data, as its push hooks and push-triggered integrations
 * send it: who pushed, the ref, the project and repository, the new commits (oldest first, the
 * newest PUSH_DATA_MAX_COMMITS of them, each with the files it added, modified and removed) and
 * their count (up to PUSH_DATA_COUNT_LIMIT).
 */
type PushDataRepository = Pick<GitRepository, 'newCommits' | 'defaultBranch' | 'commitFileChanges'>;

export async function buildPushData(repository: PushDataRepository, input: PushDataInput): Promise<PushData> {
  const tag = input.ref.startsWith('refs/tags/');
  const deleted = input.after === ZERO_SHA;
  const commits = deleted || tag ? [] : await newCommitsOf(repository, input);
  const listed = commits.slice(0, PUSH_DATA_MAX_COMMITS).reverse();
  const files = await repository.commitFileChanges(listed, PUSH_DATA_MAX_FILES_PER_COMMIT);
  const projectUrl = `${input.externalUrl}/${input.projectPath}`;
  const gitHttpUrl = `${projectUrl}.git`;
  const visibilityLevel = VISIBILITY_LEVELS[input.project.visibility];
  return {
    object_kind: tag ? 'tag_push' : 'push',
    event_name: tag ? 'tag_push' : 'push',
    before: input.before,
    after: input.after,
    ref: input.ref,
    checkout_sha: deleted ? null : input.after,
    message: null,
    user_id: input.pusher?.id ?? null,
    user_name: input.pusher?.name ?? null,
    user_username: input.pusher?.username ?? null,
    user_email: '',
    user_avatar: null,
    project_id: input.project.id,
    project: {
      id: input.project.id,
      name: input.project.name,
      description: input.project.description,
      web_url: projectUrl,
      avatar_url: null,
      git_http_url: gitHttpUrl,
      namespace: input.namespaceName,
      visibility_level: visibilityLevel,
      path_with_namespace: input.projectPath,
      default_branch: input.project.default_branch,
      homepage: projectUrl,
      url: gitHttpUrl,
      http_url: gitHttpUrl,
    },
    commits: listed.map((commit) => commitData(commit, projectUrl, files.get(commit.id))),
    total_commits_count: commits.length,
    repository: { name: input.project.name, url: gitHttpUrl, description: input.project.description, homepage: projectUrl, git_http_url: gitHttpUrl, visibility_level: visibilityLevel },
  };
}

/** An update: the commits since `before`; a new branch: those not on the default branch. */
async function newCommitsOf(repository: PushDataRepository, input: PushDataInput): Promise<GitCommit[]> {
  const defaultBranch = input.project.default_branch ?? (await repository.defaultBranch());
  const excluding = input.before !== ZERO_SHA ? [input.before] : defaultBranch !== null && input.ref !== `refs/heads/${defaultBranch}` ? [`refs/heads/${defaultBranch}`] : [];
  return repository.newCommits(input.after, excluding, PUSH_DATA_COUNT_LIMIT);
}

function commitData(commit: GitCommit, projectUrl: string, files: GitCommitFileChanges | undefined): PushDataCommit {
  return {
    id: commit.id,
    message: commit.message.length > PUSH_DATA_MAX_MESSAGE ? commit.message.slice(0, PUSH_DATA_MAX_MESSAGE) : commit.message,
    title: commit.title,
    timestamp: commit.author.date,
    url: `${projectUrl}/-/commit/${commit.id}`,
    author: { name: commit.author.name, email: commit.author.email },
    added: files?.added ?? [],
    modified: files?.modified ?? [],
    removed: files?.removed ?? [],
  };
}
