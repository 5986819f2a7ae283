import type { CoordinatorContext } from './context.ts';
import { BranchesService } from './services/repository/branches.ts';
import { DeployKeysService } from './services/accounts/deploy-keys.ts';
import { lastPipelineLookup } from './services/ci/pipelines/last-pipeline.ts';
import { ProtectedRefsService } from './services/repository/protected-refs.ts';
import { ReleaseLinksService } from './services/repository/release-links.ts';
import { ReleasesService, type ReleaseObserver } from './services/repository/releases.ts';
import { ReleaseMilestones } from './services/repository/release-milestones.ts';
import { PlanningPermissions } from './services/access/planning-permissions.ts';
import { RepositoryAccess } from './services/repository/access.ts';
import { BrowsingService } from './services/repository/browsing.ts';
import { CommitCommentsService } from './services/repository/commit-comments.ts';
import { CommitsService } from './services/repository/commits.ts';
import { FilesService } from './services/repository/files.ts';
import { RepositoryWriter } from './services/repository/writes.ts';
import { TagsService } from './services/repository/tags.ts';
import { GpgVerifier } from '../storage/git/gpg-verify.ts';
import { CommitSignaturesService } from './services/repository/commit-signatures.ts';
import { HousekeepingService } from './services/repository/housekeeping.ts';
import { SnapshotService } from './services/repository/snapshot.ts';
import type { TaskQueue } from './services/task-queue.ts';

/** The repository area's services (code, refs, releases, deploy keys), each with its narrow dependencies. */
export function buildRepositoryServices(context: CoordinatorContext, options: { releaseObservers?: readonly ReleaseObserver[] } = {}) {
  const { stores, lookup, permissions, repositories, events, protectedBranches: branchRules, protectedTags: tagRules } = context;
  const access = new RepositoryAccess({ lookup, permissions, namespaces: stores.namespaces, repositories });
  // Commits through the API ask the context's rules at each write: whoever replaces them
  // there (a test standing in for protected-branch rules) is heard by commits and files alike.
  const pushRules = { canPush: (...args: Parameters<typeof branchRules.canPush>) => context.protectedBranches.canPush(...args) };
  const writer = new RepositoryWriter({ access, branchRules: pushRules, projects: stores.projects, events });
  const commits = new CommitsService({ access, writer, lastPipeline: lastPipelineLookup({ pipelines: stores.pipelines, permissions }) });
  const tags = new TagsService({ access, releases: stores.releases, tagRules, events });
  const releaseLinks = new ReleaseLinksService({ access, releases: stores.releases, releaseLinks: stores.releaseLinks });
  const milestones = new ReleaseMilestones({ milestones: stores.milestones, namespaces: stores.namespaces, planningPermissions: new PlanningPermissions(permissions) });
  return {
    browsing: new BrowsingService({ access }),
    commits,
    commitComments: new CommitCommentsService({ commits, commitComments: stores.commitComments, users: stores.users }),
    files: new FilesService({ access, writer }),
    branches: new BranchesService({ access, permissions, branchRules, events, writer }),
    protectedRefs: new ProtectedRefsService({ access, branchRules, tagRules }),
    tags,
    releases: new ReleasesService({ access, permissions, releases: stores.releases, releaseLinks: stores.releaseLinks, users: stores.users, tags, links: releaseLinks, milestones, observers: options.releaseObservers }),
    releaseLinks,
    deployKeys: new DeployKeysService({ access, permissions, deployKeys: stores.deployKeys, sshKeys: stores.sshKeys, projects: stores.projects, settings: context.settings }),
  };
}

/** Housekeeping (queued on the durable task queue), snapshots and commit signatures. */
export function buildRepositoryMaintenanceServices(context: CoordinatorContext, queue: Pick<TaskQueue, 'enqueue'>) {
  const { stores, lookup, permissions, repositories } = context;
  const access = new RepositoryAccess({ lookup, permissions, namespaces: stores.namespaces, repositories });
  return {
    housekeeping: new HousekeepingService({ access, repositories, queue }),
    snapshots: new SnapshotService({ lookup, permissions, repositories }),
    commitSignatures: new CommitSignaturesService({ access, gpgKeys: stores.gpgKeys, users: stores.users, emails: stores.userEmails, verifier: new GpgVerifier() }),
  };
}
