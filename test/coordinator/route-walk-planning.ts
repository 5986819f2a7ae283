/** The planning records a walk of the route table names: labels, milestones, issues, notes, award emoji and a todo (each route deleting gets its own). */
export interface WalkPlanning {
  labelId: number;
  groupLabelId: number;
  /** Labels the delete-by-name routes remove. */
  spareLabel: string;
  spareGroupLabel: string;
  /** Labels the delete-by-id routes remove (renames walked on the others never reach them). */
  doomedLabelId: number;
  doomedGroupLabelId: number;
  /** Group labels for the group subscribe (root does not follow it) and unsubscribe (root follows it) routes. */
  unfollowedGroupLabelId: number;
  followedGroupLabelId: number;
  milestoneId: number;
  groupMilestoneId: number;
  doomedMilestoneId: number;
  doomedGroupMilestoneId: number;
  issueIid: number;
  doomedIssueIid: number;
  /** A user note of the walk issue, one the delete route removes, and award emoji on the issue and on the note (each deleting route its own). */
  noteId: number;
  doomedNoteId: number;
  awardId: number;
  noteAwardId: number;
  doomedAwardId: number;
  doomedNoteAwardId: number;
  /** The issue the move route moves, once, to `moveTargetProjectId` (a project of the same group). */
  movedIssueIid: number;
  moveTargetProjectId: number;
  /** The project label the promote route makes a group label. */
  promotedLabelId: number;
  /** A todo of root's (another user assigned root to an issue), for `/todos/:id/mark_as_done`. */
  todoId: number;
  /** An issue root takes no part in (subscribing to it changes something; the walk issue root opened is subscribed already). */
  strangerIssueIid: number;
  /** A merge request the walk reads and edits, one the delete route removes, and a branch with none that the create route opens one from. */
  mergeRequestIid: number;
  doomedMergeRequestIid: number;
  /** A note of the walked merge request, one to delete, and awards on the request and the note (a `tada` each, with one more to delete). */
  mergeRequestActivity: { noteId: number; doomedNoteId: number; awardId: number; doomedAwardId: number; noteAwardId: number; doomedNoteAwardId: number };
  newMergeRequestBranch: string;
  /** A thread on the walk issue and one on the walked request (resolvable), each with a reply the delete routes remove. */
  threads: { issue: WalkThread; mergeRequest: WalkThread };
  /** A request root has approved, for the unapprove route (approve walks the walked request). */
  approvedMergeRequestIid: number;
  /** The walked request's diff version (recorded when it was opened). */
  mergeRequestVersionId: number;
}

export interface WalkThread {
  discussionId: string;
  noteId: number;
  doomedNoteId: number;
}

async function seedApproval(call: Call, projectUrl: string): Promise<number> {
  await call('POST', `${projectUrl}/repository/commits`, { branch: 'walk-mr-approved', start_branch: 'main', commit_message: 'approved', actions: [{ action: 'create', file_path: 'walk-mr-approved.txt', content: 'approved' }] });
  const iid = Number((await call('POST', `${projectUrl}/merge_requests`, { source_branch: 'walk-mr-approved', target_branch: 'main', title: 'walk-mr-approved' })).iid);
  await call('POST', `${projectUrl}/merge_requests/${iid}/approve`, {});
  return iid;
}

async function seedThread(call: Call, targetUrl: string): Promise<WalkThread> {
  const thread = await call('POST', `${targetUrl}/discussions`, { body: 'walk thread' });
  const discussionId = String(thread.id);
  const noteId = Number((thread.notes as Array<{ id: number }>)[0]?.id);
  const doomedNoteId = Number((await call('POST', `${targetUrl}/discussions/${discussionId}/notes`, { body: 'walk reply' })).id);
  return { discussionId, noteId, doomedNoteId };
}

/** Routes with no record to act on yet: merge request subscriptions still answer 404 (their work is not done). */
export const PLANNING_ROUTES_WITHOUT_RECORDS: ReadonlySet<string> = new Set([
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/subscribe',
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/unsubscribe',
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/changes',
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/diffs',
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/commits',
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/merge',
  'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/rebase',
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/cancel_merge_when_pipeline_succeeds',
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/closes_issues',
  // Until the merge requests API creates one for the walk (test/coordinator/merge-request-pipelines.test.ts reaches them).
  'GET /api/v4/projects/:id/merge_requests/:merge_request_iid/pipelines',
  'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/pipelines',
]);

type Call = (method: 'POST' | 'PUT', url: string, body: unknown, status?: number) => Promise<Record<string, unknown>>;
/** A user of the walked coordinator, and a GET as root. */
interface Walker {
  createUser(username: string): Promise<{ id: number; token: string }>;
  api(method: 'GET' | 'POST', path: string, options?: { token?: string; body?: unknown }): Promise<{ json: Record<string, unknown>; list: Array<Record<string, unknown>> }>;
}

/** Branches with a commit each, and merge requests from two of them into main. */
async function seedMergeRequests(call: Call, projectUrl: string): Promise<Pick<WalkPlanning, 'mergeRequestIid' | 'doomedMergeRequestIid' | 'newMergeRequestBranch' | 'mergeRequestActivity'>> {
  const iids: number[] = [];
  for (const branch of ['walk-mr', 'walk-mr-doomed', 'walk-mr-new']) {
    await call('POST', `${projectUrl}/repository/commits`, { branch, start_branch: 'main', commit_message: branch, actions: [{ action: 'create', file_path: `${branch}.txt`, content: branch }] });
    if (branch !== 'walk-mr-new') iids.push(Number((await call('POST', `${projectUrl}/merge_requests`, { source_branch: branch, target_branch: 'main', title: branch, labels: 'walk' })).iid));
  }
  const requestUrl = `${projectUrl}/merge_requests/${iids[0]}`;
  const [noteId, doomedNoteId] = [Number((await call('POST', `${requestUrl}/notes`, { body: 'walk' })).id), Number((await call('POST', `${requestUrl}/notes`, { body: 'doomed' })).id)];
  const award = async (url: string, name: string) => Number((await call('POST', `${url}/award_emoji`, { name })).id);
  const mergeRequestActivity = {
    noteId,
    doomedNoteId,
    awardId: await award(requestUrl, 'tada'),
    doomedAwardId: await award(requestUrl, 'rocket'),
    noteAwardId: await award(`${requestUrl}/notes/${noteId}`, 'tada'),
    doomedNoteAwardId: await award(`${requestUrl}/notes/${noteId}`, 'rocket'),
  };
  return { mergeRequestIid: iids[0]!, doomedMergeRequestIid: iids[1]!, newMergeRequestBranch: 'walk-mr-new', mergeRequestActivity };
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
  const records = {
    labelId: await idOf(`${projectUrl}/labels`, { name: 'walk', color: '#00ff00' }),
    groupLabelId,
    spareLabel: 'walk-spare',
    spareGroupLabel: 'walk-group-spare',
    doomedLabelId: await idOf(`${projectUrl}/labels`, { name: 'walk-doomed', color: 'red' }),
    doomedGroupLabelId: await idOf(`${groupUrl}/labels`, { name: 'walk-group-doomed', color: 'red' }),
    unfollowedGroupLabelId: await idOf(`${groupUrl}/labels`, { name: 'walk-group-unfollowed', color: 'red' }),
    followedGroupLabelId: await idOf(`${groupUrl}/labels`, { name: 'walk-group-followed', color: 'red' }),
    milestoneId: await idOf(`${projectUrl}/milestones`, { title: 'walk' }),
    groupMilestoneId: await idOf(`${groupUrl}/milestones`, { title: 'walk-group' }),
    doomedMilestoneId: await idOf(`${projectUrl}/milestones`, { title: 'walk-doomed' }),
    doomedGroupMilestoneId: await idOf(`${groupUrl}/milestones`, { title: 'walk-group-doomed' }),
  };
  await call('POST', `${groupUrl}/labels/${records.followedGroupLabelId}/subscribe`, {});
  // After the labels: the issue's unknown label would be created with it.
  const issue = await call('POST', `${projectUrl}/issues`, { title: 'walk', labels: 'walk' });
  const awards = `${projectUrl}/issues/${String(issue.iid)}/award_emoji`;
  const notesUrl = `${projectUrl}/issues/${String(issue.iid)}/notes`;
  const noteId = await idOf(notesUrl, { body: 'walk' });
  const noteAwards = `${projectUrl}/issues/${String(issue.iid)}/notes/${noteId}/award_emoji`;
  const seeded = {
    ...records,
    issueIid: Number(issue.iid),
    doomedIssueIid: Number((await call('POST', `${projectUrl}/issues`, { title: 'walk-doomed' })).iid),
    noteId,
    doomedNoteId: await idOf(notesUrl, { body: 'walk-doomed' }),
    awardId: await idOf(awards, { name: 'tada' }),
    noteAwardId: await idOf(noteAwards, { name: 'tada' }),
    doomedAwardId: await idOf(awards, { name: 'rocket' }),
    doomedNoteAwardId: await idOf(noteAwards, { name: 'rocket' }),
    movedIssueIid: Number((await call('POST', `${projectUrl}/issues`, { title: 'walk-moved', labels: 'walk' })).iid),
    moveTargetProjectId: await idOf('/projects', { name: 'walk-move-target', path: 'walk-move-target', namespace_id: groupId }),
    promotedLabelId: await idOf(`${projectUrl}/labels`, { name: 'walk-promoted', color: 'red' }),
    ...(await seedOthers(call, walker, projectUrl)),
    ...(await seedMergeRequests(call, projectUrl)),
  };
  const mergeRequestVersionId = Number((await walker.api('GET', `${projectUrl}/merge_requests/${seeded.mergeRequestIid}/versions`)).list[0]?.id);
  return { ...seeded, approvedMergeRequestIid: await seedApproval(call, projectUrl), mergeRequestVersionId, threads: { issue: await seedThread(call, `${projectUrl}/issues/${seeded.issueIid}`), mergeRequest: await seedThread(call, `${projectUrl}/merge_requests/${seeded.mergeRequestIid}`) } };
}

/** The planning record a path parameter names, if it is one of them. */
export function planningValue(path: string, name: string, planning: WalkPlanning): number | string | undefined {
  if (name === 'label_id') return path.startsWith('/groups/') ? planning.groupLabelId : planning.labelId;
  if (name === 'issue_iid') return planning.issueIid;
  if (name === 'merge_request_iid') return planning.mergeRequestIid;
  if (name === 'version_id') return planning.mergeRequestVersionId;
  if (name === 'discussion_id') return (path.includes('/merge_requests/') ? planning.threads.mergeRequest : planning.threads.issue).discussionId;
  const activity = path.includes('/merge_requests/') ? planning.mergeRequestActivity : planning;
  if (name === 'note_id' && path.includes('/discussions/')) return (path.includes('/merge_requests/') ? planning.threads.mergeRequest : planning.threads.issue).noteId;
  if (name === 'note_id') return activity.noteId;
  if (name === 'award_id') return path.includes('/notes/') ? activity.noteAwardId : activity.awardId;
  if (name === 'milestone_id') return path.startsWith('/groups/') ? planning.groupMilestoneId : planning.milestoneId;
  return undefined;
}

/** Parameters the planning routes' well-formed requests need (the label a by-name route changes or deletes). */
export function planningParams(world: { planning: WalkPlanning }): Record<string, Record<string, string>> {
  const { planning } = world;
  return {
    'PUT /api/v4/projects/:id/labels': { name: 'walk', color: 'red' },
    'PUT /api/v4/projects/:id/issues/:issue_iid': { title: 'walked' },
    'POST /api/v4/projects/:id/merge_requests': { source_branch: planning.newMergeRequestBranch, target_branch: 'main', title: 'walked' },
    'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid': { title: 'walked' },
    'PUT /api/v4/groups/:id/labels': { name: 'walk-group', color: 'red' },
    'PUT /api/v4/projects/:id/labels/:label_id': { color: 'red' },
    'PUT /api/v4/groups/:id/labels/:label_id': { color: 'red' },
    'DELETE /api/v4/projects/:id/labels': { name: planning.spareLabel },
    'DELETE /api/v4/groups/:id/labels': { name: planning.spareGroupLabel },
    'POST /api/v4/projects/:id/issues/:issue_iid/award_emoji': { name: 'thumbsup' },
    'POST /api/v4/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji': { name: 'thumbsup' },
    'POST /api/v4/projects/:id/issues/:issue_iid/time_estimate': { duration: '1h' },
    'POST /api/v4/projects/:id/issues/:issue_iid/add_spent_time': { duration: '1h', summary: 'walked' },
    'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/award_emoji': { name: 'thumbsup' },
    'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id': { body: 'walked' },
    'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji': { name: 'thumbsup' },
    'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/time_estimate': { duration: '1h' },
    'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/add_spent_time': { duration: '1h', summary: 'walked' },
    'POST /api/v4/projects/:id/issues/:issue_iid/move': { to_project_id: String(planning.moveTargetProjectId) },
    'POST /api/v4/projects/:id/issues/:issue_iid/discussions': { body: 'walked' },
    'POST /api/v4/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes': { body: 'walked' },
    'PUT /api/v4/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id': { body: 'walked' },
    'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/discussions': { body: 'walked' },
    'POST /api/v4/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes': { body: 'walked' },
    'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes/:note_id': { body: 'walked' },
    'PUT /api/v4/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id': { resolved: 'true' },
  };
}

/** Path parameters of planning routes whose well-formed request must name a record of its own. */
export function planningPathParams(route: { method: string; url: string }, world: { planning: WalkPlanning }): Record<string, string> {
  const { planning } = world;
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid/move') return { issue_iid: String(planning.movedIssueIid) };
  if (route.url === '/api/v4/projects/:id/labels/:label_id/promote') return { label_id: String(planning.promotedLabelId) };
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid/subscribe') return { issue_iid: String(planning.strangerIssueIid) };
  if (route.url === '/api/v4/projects/:id/labels/:label_id/unsubscribe') return { label_id: String(planning.groupLabelId) };
  if (route.url === '/api/v4/groups/:id/labels/:label_id/subscribe') return { label_id: String(planning.unfollowedGroupLabelId) };
  if (route.url === '/api/v4/groups/:id/labels/:label_id/unsubscribe') return { label_id: String(planning.followedGroupLabelId) };
  if (route.url === '/api/v4/projects/:id/merge_requests/:merge_request_iid/unapprove') return { merge_request_iid: String(planning.approvedMergeRequestIid) };
  if (route.method !== 'DELETE') return {};
  if (route.url === '/api/v4/projects/:id/labels/:label_id') return { label_id: String(planning.doomedLabelId) };
  if (route.url === '/api/v4/groups/:id/labels/:label_id') return { label_id: String(planning.doomedGroupLabelId) };
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid') return { issue_iid: String(planning.doomedIssueIid) };
  if (route.url === '/api/v4/projects/:id/merge_requests/:merge_request_iid') return { merge_request_iid: String(planning.doomedMergeRequestIid) };
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid/notes/:note_id') return { note_id: String(planning.doomedNoteId) };
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid/award_emoji/:award_id') return { award_id: String(planning.doomedAwardId) };
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid/notes/:note_id/award_emoji/:award_id') return { award_id: String(planning.doomedNoteAwardId) };
  const activity = planning.mergeRequestActivity;
  if (route.url === '/api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id') return { note_id: String(activity.doomedNoteId) };
  if (route.url === '/api/v4/projects/:id/merge_requests/:merge_request_iid/award_emoji/:award_id') return { award_id: String(activity.doomedAwardId) };
  if (route.url === '/api/v4/projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji/:award_id') return { award_id: String(activity.doomedNoteAwardId) };
  if (route.url === '/api/v4/projects/:id/issues/:issue_iid/discussions/:discussion_id/notes/:note_id') return { note_id: String(planning.threads.issue.doomedNoteId) };
  if (route.url === '/api/v4/projects/:id/merge_requests/:merge_request_iid/discussions/:discussion_id/notes/:note_id') return { note_id: String(planning.threads.mergeRequest.doomedNoteId) };
  if (route.url === '/api/v4/projects/:id/milestones/:milestone_id') return { milestone_id: String(planning.doomedMilestoneId) };
  if (route.url === '/api/v4/groups/:id/milestones/:milestone_id') return { milestone_id: String(planning.doomedGroupMilestoneId) };
  return {};
}
