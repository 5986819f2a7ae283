/** The planning records a walk of the route table names: labels, milestones, issues and a todo (each route deleting gets its own). */
export interface WalkPlanning {
  labelId: number;
  groupLabelId: number;
  /** Labels the delete-by-name routes remove. */
  spareLabel: string;
  spareGroupLabel: string;
  /** Labels the delete-by-id routes remove (renames walked on the others never reach them). */
  doomedLabelId: number;
  doomedGroupLabelId: number;
  milestoneId: number;
  groupMilestoneId: number;
  doomedMilestoneId: number;
  doomedGroupMilestoneId: number;
  issueIid: number;
  doomedIssueIid: number;
  /** A todo of root's (another user assigned root to an issue), for `/todos/:id/mark_as_done`. */
  todoId: number;
  /** An issue root takes no part in (subscribing to it changes something; the walk issue root opened is subscribed already). */
  strangerIssueIid: number;
}

/** Routes with no record to act on yet: merge requests do not exist, so their subscriptions are 404s. */
export const PLANNING_ROUTES_WITHOUT_RECORDS: ReadonlySet<string> = new Set([
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/subscribe',
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/unsubscribe',
]);

type Call = (method: 'POST' | 'PUT', url: string, body: unknown, status?: number) => Promise<Record<string, unknown>>;
/** A user of the walked coordinator, and a GET as root. */
interface Walker {
  createUser(username: string): Promise<{ id: number; token: string }>;
  api(method: 'GET' | 'POST', path: string, options?: { token?: string; body?: unknown }): Promise<{ json: Record<string, unknown>; list: Array<Record<string, unknown>> }>;
}

/** What another user makes: a todo of root's (they assign root to an issue), and an issue root takes no part in. */
async function seedOthers(call: Call, walker: Walker, projectUrl: string): Promise<{ todoId: number; strangerIssueIid: number }> {
  const assigner = await walker.createUser(`walk-assigner-${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`);
  await call('POST', `${projectUrl}/members`, { user_id: assigner.id, access_level: 20 });
  await walker.api('POST', `${projectUrl}/issues`, { token: assigner.token, body: { title: 'walk-todo', assignee_ids: [1] } });
  const stranger = await walker.api('POST', `${projectUrl}/issues`, { token: assigner.token, body: { title: 'walk-stranger' } });
  return { todoId: Number((await walker.api('GET', '/todos')).list[0]?.id), strangerIssueIid: Number(stranger.json.iid) };
}

export async function seedPlanning(call: Call, projectUrl: string, groupId: number, walker: Walker): Promise<WalkPlanning> {
  const groupUrl = `/groups/${groupId}`;
  const idOf = async (url: string, body: unknown) => Number((await call('POST', url, body)).id);
  await call('POST', `${projectUrl}/labels`, { name: 'walk-spare', color: 'red' });
  await call('POST', `${groupUrl}/labels`, { name: 'walk-group-spare', color: 'red' });
  const groupLabelId = await idOf(`${groupUrl}/labels`, { name: 'walk-group', color: 'blue' });
  // Root follows the group label, so that the walked unsubscribe has something to undo.
  await call('POST', `${projectUrl}/labels/${groupLabelId}/subscribe`, {});
  return {
    labelId: await idOf(`${projectUrl}/labels`, { name: 'walk', color: '#00ff00' }),
    groupLabelId,
    spareLabel: 'walk-spare',
    spareGroupLabel: 'walk-group-spare',
    doomedLabelId: await idOf(`${projectUrl}/labels`, { name: 'walk-doomed', color: 'red' }),
    doomedGroupLabelId: await idOf(`${groupUrl}/labels`, { name: 'walk-group-doomed', color: 'red' }),
    milestoneId: await idOf(`${projectUrl}/milestones`, { title: 'walk' }),
    groupMilestoneId: await idOf(`${groupUrl}/milestones`, { title: 'walk-group' }),
    doomedMilestoneId: await idOf(`${projectUrl}/milestones`, { title: 'walk-doomed' }),
    doomedGroupMilestoneId: await idOf(`${groupUrl}/milestones`, { title: 'walk-group-doomed' }),
    issueIid: Number((await call('POST', `${projectUrl}/issues`, { title: 'walk', labels: 'walk' })).iid),
    doomedIssueIid: Number((await call('POST', `${projectUrl}/issues`, { title: 'walk-doomed' })).iid),
    ...(await seedOthers(call, walker, projectUrl)),
  };
}

/** The planning record a path parameter names, if it is one of them. */
export function planningValue(path: string, name: string, planning: WalkPlanning): number | undefined {
  if (name === 'label_id') return path.startsWith('/groups/') ? planning.groupLabelId : planning.labelId;
  if (name === 'issue_iid') return planning.issueIid;
  if (name === 'milestone_id') return path.startsWith('/groups/') ? planning.groupMilestoneId : planning.milestoneId;
  return undefined;
}

/** Parameters the planning routes' well-formed requests need (the label a by-name route changes or deletes). */
export function planningParams(world: { planning: WalkPlanning }): Record<string, Record<string, string>> {
  const { planning } = world;
  return {
    'PUT /api/v4/projects/:id/labels': { name: 'walk', color: 'red' },
    'PUT /api/v4/projects/:id/issues/:issue_iid': { title: 'walked' },
    'PUT /api/v4/groups/:id/labels': { name: 'walk-group', color: 'red' },
    'PUT /api/v4/projects/:id/labels/:label_id': { color: 'red' },
    'PUT /api/v4/groups/:id/labels/:label_id': { color: 'red' },
    'DELETE /api/v4/projects/:id/labels': { name: planning.spareLabel },
    'DELETE /api/v4/groups/:id/labels': { name: planning.spareGroupLabel },
  };
}

/** Path parameters of planning routes whose well-formed request must name a record of its own. */
export function planningPathParams(route: { method: string; url: string }, world: { planning: WalkPlanning }): Record<string, string> {
  const { planning } = world;
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid/subscribe') return { issue_iid: String(planning.strangerIssueIid) };
  if (route.url === '/api/v4/projects/:id/labels/:label_id/unsubscribe') return { label_id: String(planning.groupLabelId) };
  if (route.method !== 'DELETE') return {};
  if (route.url === '/api/v4/projects/:id/labels/:label_id') return { label_id: String(planning.doomedLabelId) };
  if (route.url === '/api/v4/groups/:id/labels/:label_id') return { label_id: String(planning.doomedGroupLabelId) };
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid') return { issue_iid: String(planning.doomedIssueIid) };
  if (route.url === '/api/v4/projects/:id/milestones/:milestone_id') return { milestone_id: String(planning.doomedMilestoneId) };
  if (route.url === '/api/v4/groups/:id/milestones/:milestone_id') return { milestone_id: String(planning.doomedGroupMilestoneId) };
  return {};
}
