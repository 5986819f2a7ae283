import { Type, type Static } from '#deps/typebox';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION } from '../../http/pagination.ts';
import { emojiName } from '../../services/planning/award-emoji-names.ts';
import type { MergeRequestUpdateInput, NewMergeRequestInput } from '../../services/planning/merge-requests/edits.ts';
import type { MergeRequestQuery } from '../../services/planning/merge-requests/service.ts';
import { anyOrNone, blankless, labelFilter, NEGATABLE, negatedCommon, refuseBoth, searchColumns, userFilter } from './issuable-list-params.ts';

/** The query of the merge request lists (GitLab's MergeRequestsFinder parameters). */
export const ListQuery = Type.Object({
  state: Type.Optional(Param.oneOf(['opened', 'closed', 'locked', 'merged', 'all'], { description: 'opened, closed, locked, merged or all (default)' })),
  order_by: Type.Optional(Param.oneOf(['created_at', 'updated_at', 'title'], { description: 'created_at (default), updated_at or title' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'desc (default) or asc' })),
  milestone: Type.Optional(Param.string({ description: 'A milestone title; None or Any' })),
  view: Type.Optional(Param.oneOf(['simple'], { description: 'simple: id, iid, project_id, title, description, state, dates and web_url only' })),
  labels: Type.Optional(Param.strings({ description: 'Comma-separated names (or labels[]=…), all required; None or Any' })),
  created_after: Type.Optional(Param.dateTime({ description: 'Created at or after' })),
  created_before: Type.Optional(Param.dateTime({ description: 'Created at or before' })),
  updated_after: Type.Optional(Param.dateTime({ description: 'Updated at or after' })),
  updated_before: Type.Optional(Param.dateTime({ description: 'Updated at or before' })),
  environment: Type.Optional(Param.string({ description: 'Only requests deployed to this environment' })),
  deployed_before: Type.Optional(Param.dateTime({ description: 'Only requests deployed by a deployment finished before' })),
  deployed_after: Type.Optional(Param.dateTime({ description: 'Only requests deployed by a deployment finished after' })),
  scope: Type.Optional(Param.oneOf(['created_by_me', 'created-by-me', 'assigned_to_me', 'assigned-to-me', 'all'], { description: 'Whose requests (the global list: created_by_me by default)' })),
  author_id: Type.Optional(Param.integer({ description: 'Only requests this user opened' })),
  author_username: Type.Optional(Param.string({ description: 'Only requests this user opened (not with author_id)' })),
  assignee_id: Type.Optional(Param.string({ description: 'A user id; None or Any' })),
  assignee_username: Type.Optional(Param.string({ description: 'Only requests assigned to this user (not with assignee_id)' })),
  reviewer_id: Type.Optional(Param.string({ description: 'A user id; None or Any' })),
  reviewer_username: Type.Optional(Param.string({ description: 'Only requests this user reviews (not with reviewer_id)' })),
  my_reaction_emoji: Type.Optional(Param.string({ description: 'Requests the caller awarded this emoji; None or Any' })),
  source_branch: Type.Optional(Param.string({ description: 'Only requests from this branch' })),
  target_branch: Type.Optional(Param.string({ description: 'Only requests into this branch' })),
  search: Type.Optional(Param.string({ description: 'In title and description' })),
  in: Type.Optional(Param.string({ description: 'Where search looks: title, description or title,description (default)' })),
  wip: Type.Optional(Param.oneOf(['yes', 'no'], { description: 'yes: only drafts; no: no drafts' })),
  iids: Type.Optional(Param.integers({ description: 'Only these iids' })),
  not: Type.Optional(
    Type.Object(
      {
        ...NEGATABLE,
        assignee_username: Type.Optional(Param.string({ description: 'Requests not assigned to this user (not with not[assignee_id])' })),
        reviewer_id: Type.Optional(Param.integer({ description: 'Requests this user does not review' })),
        reviewer_username: Type.Optional(Param.string({ description: 'Requests this user does not review (not with not[reviewer_id])' })),
        my_reaction_emoji: Type.Optional(Param.string({ description: 'Requests the caller did not award this emoji' })),
      },
      { description: 'Requests that do not match these filters (not[labels]=a,b ...)' },
    ),
  ),
  with_labels_details: Type.Optional(Param.boolean({ description: 'Labels as objects (id, name, color, text_color, description) instead of names' })),
  with_merge_status_recheck: Type.Optional(Param.boolean({ description: 'Queue a merge status check for listed requests not checked yet (Developers and up; not with view=simple)' })),
  ...PAGINATION,
});
export type ListQueryParams = Static<typeof ListQuery>;

const USER_PAIRS = [['author_id', 'author_username'], ['assignee_id', 'assignee_username'], ['reviewer_id', 'reviewer_username']] as const;

/** `not[...]`: the filters a request must not match. */
function negatedQuery(not: NonNullable<ListQueryParams['not']>): NonNullable<MergeRequestQuery['not']> {
  refuseBoth(not, [['reviewer_id', 'reviewer_username']], 'not');
  return { ...negatedCommon(not), reviewerId: not.reviewer_id, reviewerUsername: blankless(not.reviewer_username) };
}

/** `environment`, `deployed_before`, `deployed_after`: one filter over the deployment links. */
function deployedQuery(query: ListQueryParams): Pick<MergeRequestQuery, 'deployed'> {
  const environment = blankless(query.environment);
  if (environment === undefined && query.deployed_before === undefined && query.deployed_after === undefined) return {};
  return { deployed: { environment, finishedBefore: query.deployed_before, finishedAfter: query.deployed_after } };
}

export function mergeRequestQuery(query: ListQueryParams): MergeRequestQuery {
  refuseBoth(query, USER_PAIRS);
  const milestone = blankless(query.milestone);
  const emoji = blankless(query.my_reaction_emoji);
  return {
    state: query.state === 'all' ? undefined : query.state,
    labels: labelFilter(query.labels),
    milestone: milestone === undefined ? undefined : (anyOrNone(milestone) ?? milestone),
    scope: query.scope?.replace(/-/g, '_') as MergeRequestQuery['scope'],
    authorId: query.author_id,
    authorUsername: blankless(query.author_username),
    assigneeId: userFilter('assignee_id', query.assignee_id),
    reviewerId: userFilter('reviewer_id', query.reviewer_id),
    assigneeUsername: blankless(query.assignee_username),
    reviewerUsername: blankless(query.reviewer_username),
    iids: query.iids,
    sourceBranch: blankless(query.source_branch),
    targetBranch: blankless(query.target_branch),
    orderBy: query.order_by ?? 'created_at',
    sort: query.sort ?? 'desc',
    search: blankless(query.search),
    searchIn: searchColumns(query.in),
    draft: query.wip === undefined ? undefined : query.wip === 'yes',
    ...deployedQuery(query),
    createdAfter: query.created_after,
    createdBefore: query.created_before,
    updatedAfter: query.updated_after,
    updatedBefore: query.updated_before,
    myReactionEmoji: emoji === undefined ? undefined : (anyOrNone(emoji) ?? emojiName(emoji) ?? emoji),
    recheckMergeStatus: query.with_merge_status_recheck === true && query.view !== 'simple',
    ...(query.not ? { not: negatedQuery(query.not) } : {}),
  };
}

const FIELDS = {
  description: Type.Optional(Param.string({ description: 'Markdown; `- [ ]` items count as tasks' })),
  assignee_id: Type.Optional(Param.integer({ description: 'The assignee (Developers and up; 0 assigns nobody)' })),
  assignee_ids: Type.Optional(Param.integers({ description: 'The assignee (the first id; Developers and up)' })),
  reviewer_ids: Type.Optional(Param.integers({ description: 'The reviewer (the first id; Developers and up)' })),
  labels: Type.Optional(Param.strings({ description: 'Comma-separated label names; unknown ones are created (Developers and up)' })),
  milestone_id: Type.Optional(Param.nullable(Param.integer({ description: "The project's or its groups' milestone (Developers and up); 0 or null removes it" }))),
  remove_source_branch: Type.Optional(Param.boolean({ description: 'Remove the source branch once merged' })),
  squash: Type.Optional(Param.boolean({ description: 'Squash the commits when merging' })),
  allow_collaboration: Type.Optional(Param.boolean({ description: "A fork's request: let members who may merge push to the source branch" })),
  allow_maintainer_to_push: Type.Optional(Param.boolean({ description: 'The older name of allow_collaboration' })),
};

export const CreateBody = Type.Object({
  source_branch: Param.string({ minLength: 1, description: 'The branch to merge' }),
  target_branch: Param.string({ minLength: 1, description: 'The branch to merge into' }),
  title: Param.string({ minLength: 1, description: 'The title ("Draft:" makes it a draft)' }),
  target_project_id: Type.Optional(Param.integer({ description: "A fork's request: the upstream project it proposes to (in the fork network)" })),
  ...FIELDS,
});

export const UPDATES = [
  'title', 'target_branch', 'description', 'state_event', 'remove_source_branch', 'squash', 'discussion_locked', 'allow_collaboration', 'allow_maintainer_to_push',
  'milestone_id', 'labels', 'add_labels', 'remove_labels', 'assignee_id', 'assignee_ids', 'reviewer_ids',
] as const;

export const UpdateBody = Type.Object({
  title: Type.Optional(Param.string({ minLength: 1, description: 'The title' })),
  target_branch: Type.Optional(Param.string({ minLength: 1, description: 'Retarget the request to this branch' })),
  state_event: Type.Optional(Param.oneOf(['close', 'reopen'], { description: 'Close or reopen the request' })),
  add_labels: Type.Optional(Param.strings({ description: 'Labels to add (Developers and up)' })),
  remove_labels: Type.Optional(Param.strings({ description: 'Labels to remove (Developers and up)' })),
  discussion_locked: Type.Optional(Param.boolean({ description: 'Lock the discussion (Developers and up)' })),
  ...FIELDS,
});

type Body = Static<typeof CreateBody> | Static<typeof UpdateBody>;

function shared(body: Body) {
  return {
    description: body.description,
    assigneeIds: body.assignee_ids ?? (body.assignee_id === undefined ? undefined : [body.assignee_id]),
    reviewerIds: body.reviewer_ids,
    labels: body.labels,
    milestoneId: body.milestone_id,
    removeSourceBranch: body.remove_source_branch,
    squash: body.squash,
    allowCollaboration: body.allow_collaboration ?? body.allow_maintainer_to_push,
  };
}

export function newMergeRequestInput(body: Static<typeof CreateBody>): NewMergeRequestInput {
  return { ...shared(body), sourceBranch: body.source_branch, targetBranch: body.target_branch, title: body.title, targetProjectId: body.target_project_id };
}

export function mergeRequestUpdateInput(body: Static<typeof UpdateBody>): MergeRequestUpdateInput {
  return {
    ...shared(body), title: body.title, targetBranch: body.target_branch, stateEvent: body.state_event, addLabels: body.add_labels, removeLabels: body.remove_labels,
    discussionLocked: body.discussion_locked,
  };
}
