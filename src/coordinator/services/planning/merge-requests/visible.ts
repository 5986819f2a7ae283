import { GantryError } from '../../../../shared/errors.ts';
import type { ProjectRecord } from '../../../../storage/types.ts';
import type { MergeRequestRecord, MergeRequestsStore } from '../../../../storage/types-merge-requests.ts';
import type { Lookup } from '../../access/lookup.ts';
import type { MergeRequestPermissions } from '../../access/merge-request-permissions.ts';
import type { Actor } from '../../access/permissions.ts';

export interface VisibleMergeRequestsDeps {
  lookup: Pick<Lookup, 'readableProject'>;
  mergeRequests: Pick<MergeRequestsStore, 'findByIid'>;
  mergeRequestPermissions: Pick<MergeRequestPermissions, 'canReadMergeRequests'>;
}

/** The one rule of which merge request a caller may see, for every service below a merge request. */
export class VisibleMergeRequests {
  constructor(private readonly deps: VisibleMergeRequestsDeps) {}

  /** 404 for no project, merge requests disabled or not readable, or no such iid. */
  async find(projectRef: string, actor: Actor, iid: number): Promise<{ project: ProjectRecord; mergeRequest: MergeRequestRecord }> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    return { project, mergeRequest: await this.inProject(project, actor, iid) };
  }

  async inProject(project: ProjectRecord, actor: Actor, iid: number): Promise<MergeRequestRecord> {
    if (!(await this.deps.mergeRequestPermissions.canReadMergeRequests(project, actor))) throw new GantryError('GANTRY_E_MERGE_REQUEST_NOT_FOUND');
    const mergeRequest = await this.deps.mergeRequests.findByIid(project.id, iid);
    if (!mergeRequest) throw new GantryError('GANTRY_E_MERGE_REQUEST_NOT_FOUND');
    return mergeRequest;
  }
}
