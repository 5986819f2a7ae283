import { GantryError } from '../../../shared/errors.ts';
import type { IssueRecord, IssuesStore } from '../../../storage/types-planning.ts';
import type { CommitReferencesStore } from '../../../storage/types-references.ts';
import type { ProjectRecord, UserRecord } from '../../../storage/types.ts';
import type { Lookup } from '../access/lookup.ts';
import type { PlanningPermissions } from '../access/planning-permissions.ts';
import type { Actor } from '../access/permissions.ts';
import type { IssueReference } from './reference-parser.ts';
import type { SystemNotes } from './system-notes.ts';

export interface CommitReferenceTargetsDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  issues: Pick<IssuesStore, 'findByIid' | 'assigneesOf'>;
  planningPermissions: Pick<PlanningPermissions, 'canSeeIssue' | 'canUpdateIssue'>;
  references: CommitReferencesStore;
  systemNotes: Pick<SystemNotes, 'add'>;
}

export interface ReferencedIssue {
  project: ProjectRecord;
  issue: IssueRecord;
}

/** Which issue a reference in a commit names, if the commit's author may see it. */
export class CommitReferenceTargets {
  constructor(private readonly deps: CommitReferenceTargetsDeps) {}

  /** Null for a project or issue that does not exist or that `author` may not see (the two look the same). */
  async resolve(commitProject: ProjectRecord, commitProjectPath: string, reference: IssueReference, author: Actor): Promise<ReferencedIssue | null> {
    const project = await this.project(commitProject, commitProjectPath, reference.projectPath, author);
    if (!project) return null;
    const issue = await this.deps.issues.findByIid(project.id, reference.iid);
    if (!issue) return null;
    const assignees = issue.confidential ? ((await this.deps.issues.assigneesOf([issue.id])).get(issue.id) ?? []) : [];
    return (await this.deps.planningPermissions.canSeeIssue(project, issue, assignees, author)) ? { project, issue } : null;
  }

  mayClose(target: ReferencedIssue, author: UserRecord): Promise<boolean> {
    return this.deps.planningPermissions.canUpdateIssue(target.project, target.issue, author);
  }

  /** `#1`: the commit's project; `p#1`: project `p` of the same namespace; `g/p#1`: that full path. */
  private async project(commitProject: ProjectRecord, commitProjectPath: string, path: string | null, author: Actor): Promise<ProjectRecord | null> {
    if (path === null) return commitProject;
    const fullPath = path.includes('/') ? path : `${commitProjectPath.slice(0, commitProjectPath.lastIndexOf('/') + 1)}${path}`;
    try {
      return await this.deps.lookup.readableProject(fullPath, author);
    } catch (error) {
      if (error instanceof GantryError) return null;
      throw error;
    }
  }
}
