import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from '#deps/typebox';
import { requireActor } from '../../http/auth.ts';
import { Param } from '../../http/gitlab-params.ts';
import { PAGINATION, pageOf, setPaginationHeaders } from '../../http/pagination.ts';
import { serializeIssue } from '../../http/serializers/planning/issues.ts';
import { serializeMergeRequest } from '../../http/serializers/planning/merge-requests.ts';
import { serializeUserBasic } from '../../http/serializers/user-basic.ts';
import type { IssueQuery } from '../../services/planning/issues.ts';
import type { CoordinatorServices, EdgeConfig } from '../../wiring.ts';
import { emojiName } from '../../services/planning/award-emoji-names.ts';
import { DUE_DATE_FILTERS } from '../../services/planning/issue-due-dates.ts';
import { serializeLabelBasic } from '../../http/serializers/planning/label-basic.ts';
import { anyOrNone, blankless, labelFilter, NEGATABLE, negatedCommon, refuseBoth, searchColumns, userFilter } from './issuable-list-params.ts';
import { requireAtLeastOneOf } from '../at-least-one.ts';

const tags = ['issues'];
const PROJECT = { id: Param.string({ description: 'Project id or URL-encoded full path' }) };
const ProjectPath = Type.Object(PROJECT);
const MILESTONE_WILDCARDS = ['Any', 'None', 'Upcoming', 'Started'] as const;
/** GitLab's work item types an issue list takes. */
const ISSUE_TYPES = ['issue', 'incident', 'test_case', 'requirement', 'task'] as const;
const GroupPath = Type.Object({ id: Param.string({ description: 'Group id or URL-encoded full path' }) });
const IssuePath = Type.Object({ ...PROJECT, issue_iid: Param.integer({ description: 'The issue iid' }) });

const ListQuery = Type.Object({
  state: Type.Optional(Param.oneOf(['opened', 'closed', 'all'], { description: 'opened, closed or all (default)' })),
  labels: Type.Optional(Param.strings({ description: 'Comma-separated names (or labels[]=…), all required; None or Any' })),
  milestone: Type.Optional(Param.string({ description: 'A milestone title; None or Any' })),
  milestone_id: Type.Optional(Param.oneOf(MILESTONE_WILDCARDS, { description: "None, Any, Upcoming (each project's or group's next active milestone due after today) or Started (an active milestone started by today); not with milestone" })),
  scope: Type.Optional(Param.oneOf(['created_by_me', 'created-by-me', 'assigned_to_me', 'assigned-to-me', 'all'], { description: 'Whose issues' })),
  author_id: Type.Optional(Param.integer({ description: 'Only issues this user opened' })),
  author_username: Type.Optional(Param.string({ description: 'Only issues this user opened (not with author_id)' })),
  assignee_id: Type.Optional(Param.string({ description: 'A user id; None or Any' })),
  assignee_username: Type.Optional(Param.strings({ description: 'Only issues assigned to this user (not with assignee_id)' })),
  my_reaction_emoji: Type.Optional(Param.string({ description: "Issues the caller awarded this emoji; None (none of theirs) or Any" })),
  iids: Type.Optional(Param.integers({ description: 'Only these iids' })),
  order_by: Type.Optional(Param.oneOf(['created_at', 'updated_at'], { description: 'created_at (default) or updated_at' })),
  sort: Type.Optional(Param.oneOf(['asc', 'desc'], { description: 'desc (default) or asc' })),
  search: Type.Optional(Param.string({ description: 'Every word (3+ characters) in the title or in the description' })),
  in: Type.Optional(Param.string({ description: 'Where search looks: title, description or title,description (default)' })),
  created_after: Type.Optional(Param.dateTime({ description: 'Created at or after' })),
  created_before: Type.Optional(Param.dateTime({ description: 'Created at or before' })),
  updated_after: Type.Optional(Param.dateTime({ description: 'Updated at or after' })),
  updated_before: Type.Optional(Param.dateTime({ description: 'Updated at or before' })),
  confidential: Type.Optional(Param.boolean({ description: 'Only confidential (or only public) issues' })),
  due_date: Type.Optional(Param.oneOf([...DUE_DATE_FILTERS, ''], { description: '0 (none), any, today, tomorrow, overdue, week, month or next_month_and_previous_two_weeks (UTC days)' })),
  issue_type: Type.Optional(Param.oneOf(ISSUE_TYPES, { description: 'Every issue here is an issue' })),
  not: Type.Optional(
    Type.Object(
      {
        ...NEGATABLE,
        milestone_id: Type.Optional(Param.oneOf(MILESTONE_WILDCARDS, { description: 'None, Any, Upcoming or Started: leaves out what the wildcard would keep (Upcoming: keeps active milestones due by today; Started: active ones starting after today)' })),
        iids: Type.Optional(Param.integers({ description: 'Leaves out these iids' })),
        assignee_username: Type.Optional(Param.strings({ description: 'Leaves out what is assigned to this user (not with not[assignee_id])' })),
      },
      { description: 'Issues that do not match these filters (not[labels]=a,b ...)' },
    ),
  ),
  with_labels_details: Type.Optional(Param.boolean({ description: 'Labels as objects (id, name, color, description, text_color) instead of names' })),
  ...PAGINATION,
});

const FIELDS = {
  description: Type.Optional(Param.string({ description: 'Markdown; `- [ ]` items count as tasks' })),
  confidential: Type.Optional(Param.boolean({ description: 'Visible to Reporters and up, the author and assignees only' })),
  assignee_ids: Type.Optional(Param.integers({ description: 'The assignee (the first id; Reporters and up)' })),
  assignee_id: Type.Optional(Param.integer({ description: 'The assignee (deprecated form; Reporters and up)' })),
  milestone_id: Type.Optional(Param.nullable(Param.integer({ description: "The project's or its groups' milestone (Reporters and up); 0 or null removes it" }))),
  labels: Type.Optional(Param.strings({ description: 'Comma-separated label names; unknown ones are created (Reporters and up)' })),
  due_date: Type.Optional(Param.nullable(Param.date({ description: 'YYYY-MM-DD (Reporters and up)' }))),
  discussion_locked: Type.Optional(Param.boolean({ description: 'Lock the discussion (Reporters and up)' })),
};
const CreateBody = Type.Object({
  title: Param.string({ minLength: 1, description: 'The title' }),
  ...FIELDS,
  created_at: Type.Optional(Param.dateTime({ description: 'Administrators and project Owners only' })),
});
const UPDATES = ['title', 'description', 'state_event', 'labels', 'add_labels', 'remove_labels', 'assignee_ids', 'assignee_id', 'milestone_id', 'due_date', 'confidential', 'discussion_locked'] as const;
const UpdateBody = Type.Object({
  title: Type.Optional(Param.string({ description: 'The title' })),
  ...FIELDS,
  state_event: Type.Optional(Param.oneOf(['close', 'reopen'], { description: 'Close or reopen the issue' })),
  add_labels: Type.Optional(Param.strings({ description: 'Labels to add (Reporters and up)' })),
  remove_labels: Type.Optional(Param.strings({ description: 'Labels to remove (Reporters and up)' })),
});
const PageQuery = Type.Object(PAGINATION);

function milestoneWildcard(value: (typeof MILESTONE_WILDCARDS)[number] | undefined) {
  return value === undefined ? undefined : (value.toLowerCase() as 'none' | 'any' | 'upcoming' | 'started');
}

function issueQuery(query: Static<typeof ListQuery>): IssueQuery {
  refuseBoth(query, [['author_id', 'author_username'], ['assignee_id', 'assignee_username'], ['milestone_id', 'milestone']]);
  if (query.not) refuseBoth(query.not, [['milestone_id', 'milestone']], 'not');
  const milestone = blankless(query.milestone);
  const wildcard = milestoneWildcard(query.milestone_id);
  const emoji = blankless(query.my_reaction_emoji);
  const notWildcard = milestoneWildcard(query.not?.milestone_id);
  return {
    state: query.state === 'all' ? undefined : query.state,
    labels: labelFilter(query.labels),
    milestone: wildcard === 'none' || wildcard === 'any' ? wildcard : milestone === undefined ? undefined : (anyOrNone(milestone) ?? milestone),
    milestoneWildcard: wildcard === 'upcoming' || wildcard === 'started' ? wildcard : undefined,
    scope: query.scope?.replace(/-/g, '_') as IssueQuery['scope'],
    authorId: query.author_id,
    authorUsername: blankless(query.author_username),
    assigneeId: userFilter('assignee_id', query.assignee_id),
    assigneeUsername: blankless(query.assignee_username?.[0]),
    iids: query.iids,
    orderBy: query.order_by ?? 'created_at',
    sort: query.sort ?? 'desc',
    search: blankless(query.search),
    searchIn: searchColumns(query.in),
    createdAfter: query.created_after,
    createdBefore: query.created_before,
    updatedAfter: query.updated_after,
    updatedBefore: query.updated_before,
    confidential: query.confidential,
    myReactionEmoji: emoji === undefined ? undefined : (anyOrNone(emoji) ?? emojiName(emoji) ?? emoji),
    dueDate: query.due_date === '' ? undefined : query.due_date,
    issueType: query.issue_type,
    ...(query.not ? { not: { ...negatedCommon(query.not), milestoneWildcard: notWildcard, iids: query.not.iids } } : {}),
  };
}

function assignees(body: { assignee_ids?: number[]; assignee_id?: number }): number[] | undefined {
  return body.assignee_ids ?? (body.assignee_id === undefined ? undefined : [body.assignee_id]);
}

/**
 * Issues: `/issues`, `/groups/:id/issues`, `/projects/:id/issues[/:issue_iid]`, the issues of
 * milestones, and an issue's merge requests (`closed_by`, `related_merge_requests`). Every call
 * needs a signed-in caller.
 */
export function issuesRoutes({ issues, subscriptions, issueMergeRequests }: CoordinatorServices, edge: EdgeConfig): FastifyPluginAsync {
  return async (app) => {
    const api = app.withTypeProvider<TypeBoxTypeProvider>();
    const single = async (view: Parameters<typeof serializeIssue>[0], actor: Parameters<typeof subscriptions.issueSubscribed>[1]) =>
      serializeIssue(view, edge.externalUrl, true, await subscriptions.issueSubscribed(view, actor));
    const answer = (items: Parameters<typeof serializeIssue>[0][], query: { with_labels_details?: boolean } = {}) =>
      items.map((view) => (query.with_labels_details === true ? { ...serializeIssue(view, edge.externalUrl), labels: view.labelRecords.map(serializeLabelBasic) } : serializeIssue(view, edge.externalUrl)));

    api.get('/issues', { schema: { summary: "List the issues the caller may see (by default those they opened)", tags, querystring: ListQuery } }, async (request, reply) => {
      const actor = requireActor(request);
      const page = pageOf(request.query);
      const { items, total } = await issues.listAll(actor, issueQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return answer(items, request.query);
    });

    api.get('/groups/:id/issues', { schema: { summary: "List the issues of a group's projects", tags, params: GroupPath, querystring: ListQuery } }, async (request, reply) => {
      const actor = requireActor(request);
      const page = pageOf(request.query);
      const { items, total } = await issues.listGroup(request.params.id, actor, issueQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return answer(items, request.query);
    });

    api.get('/projects/:id/issues', { schema: { summary: "List a project's issues", tags, params: ProjectPath, querystring: ListQuery } }, async (request, reply) => {
      const actor = requireActor(request);
      const page = pageOf(request.query);
      const { items, total } = await issues.listProject(request.params.id, actor, issueQuery(request.query), { offset: page.offset, limit: page.perPage });
      setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
      return answer(items, request.query);
    });

    for (const kind of ['project', 'group'] as const) {
      const path = kind === 'project' ? '/projects/:id/milestones/:milestone_id/issues' : '/groups/:id/milestones/:milestone_id/issues';
      const params = Type.Object({ id: Param.string({ description: `${kind === 'project' ? 'Project' : 'Group'} id or URL-encoded full path` }), milestone_id: Param.integer({ description: 'The milestone id' }) });
      api.get(path, { schema: { summary: "A milestone's issues", tags: ['milestones'], params, querystring: PageQuery } }, async (request, reply) => {
        const actor = requireActor(request);
        const page = pageOf(request.query);
        const { items, total } = await issues.listMilestone({ kind, ref: request.params.id }, actor, request.params.milestone_id, { offset: page.offset, limit: page.perPage });
        setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
        return answer(items);
      });
    }

    api.get('/projects/:id/issues/:issue_iid', { schema: { summary: 'Get an issue', tags, params: IssuePath } }, async (request) => {
      const actor = requireActor(request);
      return single(await issues.get(request.params.id, actor, request.params.issue_iid), actor);
    });

    api.get('/projects/:id/issues/:issue_iid/participants', { schema: { summary: "An issue's participants (author, assignees, note writers)", tags, params: IssuePath } }, async (request) => {
      const people = await issues.participants(request.params.id, requireActor(request), request.params.issue_iid);
      return people.map((user) => serializeUserBasic(user, edge.externalUrl));
    });

    for (const [suffix, summary, list] of [
      ['closed_by', 'Merge requests that close the issue on merge', 'closedBy'],
      ['related_merge_requests', 'Merge requests that mention the issue', 'related'],
    ] as const) {
      api.get(`/projects/:id/issues/:issue_iid/${suffix}`, { schema: { summary, tags, params: IssuePath, querystring: PageQuery } }, async (request, reply) => {
        const page = pageOf(request.query);
        const { items, total } = await issueMergeRequests[list](request.params.id, requireActor(request), request.params.issue_iid, { offset: page.offset, limit: page.perPage });
        setPaginationHeaders(request, reply, edge.externalUrl, page, { total });
        return items.map((view) => serializeMergeRequest(view, edge.externalUrl));
      });
    }

    api.post('/projects/:id/issues', { schema: { summary: 'Open an issue', tags, params: ProjectPath, body: CreateBody } }, async (request, reply) => {
      const { body } = request;
      const input = {
        title: body.title, description: body.description, confidential: body.confidential, labels: body.labels, milestoneId: body.milestone_id,
        assigneeIds: assignees(body), dueDate: body.due_date, createdAt: body.created_at, discussionLocked: body.discussion_locked,
      };
      const actor = requireActor(request);
      const view = await issues.create(request.params.id, actor, input);
      return reply.code(201).send(await single(view, actor));
    });

    api.put('/projects/:id/issues/:issue_iid', { schema: { summary: 'Edit, close or reopen an issue', tags, params: IssuePath, body: UpdateBody } }, async (request) => {
      const { body } = request;
      requireAtLeastOneOf(body, UPDATES);
      const input = {
        title: body.title, description: body.description, confidential: body.confidential, labels: body.labels, addLabels: body.add_labels, removeLabels: body.remove_labels,
        milestoneId: body.milestone_id, assigneeIds: assignees(body), dueDate: body.due_date, discussionLocked: body.discussion_locked, stateEvent: body.state_event,
      };
      const actor = requireActor(request);
      return single(await issues.update(request.params.id, actor, request.params.issue_iid, input), actor);
    });

    api.delete('/projects/:id/issues/:issue_iid', { schema: { summary: 'Delete an issue (Owners)', tags, params: IssuePath } }, async (request, reply) => {
      await issues.remove(request.params.id, requireActor(request), request.params.issue_iid);
      return reply.code(204).send();
    });
  };
}
