import type { UserRecord } from '../../../storage/types.ts';
import { serializeGroupDetails, type GroupDetailsJson } from '../../http/serializers/namespaces/groups.ts';
import { serializeProject } from '../../http/serializers/namespaces/projects.ts';
import type { GroupDetails } from '../../services/namespaces/groups.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';

/** Group details as JSON: the projects rendered as Project JSON for the caller. */
export function groupDetailsRenderer({ projectViews }: CoordinatorServices, edge: EdgeConfig) {
  return async (details: GroupDetails, actor: UserRecord | null): Promise<GroupDetailsJson> => {
    const render = async (records: GroupDetails['projects']) =>
      (await projectViews.many(records, actor, { simple: false })).map((view) => serializeProject(view, edge.externalUrl));
    const [projects, sharedProjects] = await Promise.all([render(details.projects), render(details.sharedProjects)]);
    return serializeGroupDetails(details, edge.externalUrl, { projects, sharedProjects });
  };
}
