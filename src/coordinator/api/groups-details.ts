import type { UserRecord } from '../../storage/types.ts';
import { serializeGroupDetails, type GroupDetailsJson } from '../http/serializers/groups.ts';
import type { GroupDetails } from '../services/groups.ts';
import type { CoordinatorServices, EdgeConfig } from '../wiring.ts';

/** Group details as JSON: the projects rendered as Project JSON for the caller. */
export function groupDetailsRenderer({ projectPresenter }: CoordinatorServices, edge: EdgeConfig) {
  return async (details: GroupDetails, actor: UserRecord | null): Promise<GroupDetailsJson> => {
    const projects = await projectPresenter.many(details.projects, actor, { simple: false });
    const sharedProjects = await projectPresenter.many(details.sharedProjects, actor, { simple: false });
    return serializeGroupDetails(details, edge.externalUrl, { projects, sharedProjects });
  };
}
