import type { IntegrationRecord } from '../../../storage/types-integrations.ts';
import { base, basicAuth, field, record, secret, text, type IntegrationRequest, type OutboundIntegration, type OutboundIo, type ProjectEventNotice, type PushNotice } from './outbound-types.ts';
import type { PushDataCommit } from './push-data.ts';

/** Issue keys acted on per push (each costs two to five requests); further ones are ignored. */
export const JIRA_MAX_REFERENCES_PER_PUSH = 50;
/** Characters of a message scanned for keys (the push data keeps 100,000). */
const SCANNED_CHARS = 100_000;

/** GitLab's Jira issue reference: an uppercase project key, a dash, a number (`PROJ-123`). */
const ISSUE_KEY = /\b[A-Z][A-Z0-9_]+-\d+\b/g;
/** GitLab's default closing keywords, followed by `:`? and spaces, then the list of keys. */
const CLOSING_KEYWORD = /\b(?:clos(?:e[sd]?|ing)|fix(?:e[sd]|ing)?|resolv(?:e[sd]?|ing)|implement(?:s|ed|ing)?):? +/gi;
const LISTED_KEY = /(?:issues? +)?([A-Z][A-Z0-9_]+-\d+)\b/y;
const LIST_SEPARATOR = / *, *| +and +|/y;

export interface JiraReferences {
  mentioned: string[];
  closing: string[];
}

/** The Jira issue keys a commit message mentions, and those it closes (`Closes PROJ-1, PROJ-2`). */
export function jiraReferences(message: string): JiraReferences {
  const scanned = message.length > SCANNED_CHARS ? message.slice(0, SCANNED_CHARS) : message;
  const mentioned = [...new Set(scanned.match(ISSUE_KEY) ?? [])];
  const closing = new Set<string>();
  for (const keyword of scanned.matchAll(CLOSING_KEYWORD)) {
    let at = keyword.index + keyword[0].length;
    for (;;) {
      LISTED_KEY.lastIndex = at;
      const listed = LISTED_KEY.exec(scanned);
      if (!listed?.[1]) break;
      closing.add(listed[1]);
      LIST_SEPARATOR.lastIndex = listed.index + listed[0].length;
      LIST_SEPARATOR.exec(scanned);
      at = LIST_SEPARATOR.lastIndex;
    }
  }
  return { mentioned, closing: mentioned.filter((key) => closing.has(key)) };
}

interface JiraContext {
  io: OutboundIo;
  api: string;
  authorization: string;
}

const jsonHeaders = (context: JiraContext) => ({ authorization: context.authorization, accept: 'application/json', 'content-type': 'application/json' });

function request(context: JiraContext, method: IntegrationRequest['method'], path: string, body?: unknown): IntegrationRequest {
  return { method, url: `${context.api}${path}`, headers: jsonHeaders(context), body: body === undefined ? undefined : JSON.stringify(body) };
}

/**
 * GitLab's comment unless the issue has it already (`comment_exists?`): a retried task writes
 * no second comment. False when the issue cannot be read (no such issue, no access).
 */
async function commentOnce(context: JiraContext, key: string, body: string): Promise<boolean> {
  const path = `/issue/${encodeURIComponent(key)}/comment`;
  const existing = await context.io.send(request(context, 'GET', path));
  if (!existing) return false;
  // The answer's JSON holds each body as a JSON string: look for the comment written that way.
  if (existing.body.includes(JSON.stringify(body).slice(1, -1))) return true;
  return (await context.io.send(request(context, 'POST', path, { body }))) !== null;
}

async function resolution(context: JiraContext, key: string): Promise<'open' | 'resolved' | 'unknown'> {
  const answer = await context.io.send(request(context, 'GET', `/issue/${encodeURIComponent(key)}?fields=resolution`));
  if (!answer) return 'unknown';
  try {
    const issue = JSON.parse(answer.body) as { fields?: { resolution?: unknown } };
    return issue.fields?.resolution ? 'resolved' : 'open';
  } catch {
    return 'unknown';
  }
}

/** GitLab's close: the transition, then, once the issue reads as resolved, `Issue solved with [sha|url].` */
async function close(context: JiraContext, key: string, transitionId: string, commit: { id: string; url: string }): Promise<void> {
  if ((await resolution(context, key)) !== 'open') return;
  const moved = await context.io.send(request(context, 'POST', `/issue/${encodeURIComponent(key)}/transitions`, { transition: { id: transitionId } }));
  if (!moved || (await resolution(context, key)) !== 'resolved') return;
  await commentOnce(context, key, `Issue solved with [${commit.id}|${commit.url}].`);
}

function transitionOf(integration: IntegrationRecord): string {
  const value = integration.properties.tracker_issue_transition_id;
  return typeof value === 'number' ? String(value) : typeof value === 'string' && value.trim() !== '' ? value.trim() : '2';
}

/**
 * GitLab's Jira: each commit of a branch push that mentions `PROJ-123` comments on that issue
 * through Jira's REST API v2 (`[user|url] mentioned this issue in [a commit of project|url]:`
 * and the commit's title); a closing phrase on the default branch moves the issue with the
 * transition `tracker_issue_transition_id`; merge requests likewise (mergeRequestEvent). Basic
 * authentication with `username`/`password`.
 */
export const issueTrackerB: OutboundIntegration = {
  slug: 'issue-tracker-b',
  // GitLab's Jira hears of commits through `commit_events`, not `push_events`; never of tags.
  subscribed: (integration, tag) => !tag && integration.events.commit_events,
  hears: ['merge_requests_events'],
  deliverEvent: async (integration, notice, io) => {
    if (notice.data.object_kind === 'merge_request' && text(integration, 'url') !== '') await mergeRequestEvent(integration, notice, io);
  },
  async deliver(integration, notice, io) {
    const server = text(integration, 'url');
    if (server === '' || notice.kind !== 'push') return;
    const context = contextOf(integration, io);
    const onDefaultBranch = notice.data.project.default_branch !== null && notice.data.ref === `refs/heads/${notice.data.project.default_branch}`;
    let budget = JIRA_MAX_REFERENCES_PER_PUSH;
    for (const commit of notice.data.commits) {
      const references = jiraReferences(commit.message);
      for (const key of references.mentioned) {
        if (budget-- <= 0) return;
        const readable = await commentOnce(context, key, mentionComment(notice, commit));
        if (readable && onDefaultBranch && references.closing.includes(key)) await close(context, key, transitionOf(integration), commit);
      }
    }
  },
};

function contextOf(integration: IntegrationRecord, io: OutboundIo): JiraContext {
  return { io, api: `${base(text(integration, 'url'))}/rest/api/2`, authorization: basicAuth(text(integration, 'username'), secret(integration, 'password')) };
}

/** GitLab's cross-reference comment: `[user|url] mentioned this issue in [a commit of Group / Project|url]:` and the title. */
function mention(user: { name: string; username: string }, externalUrl: string, entity: string, projectFullName: string, url: string, title: string): string {
  return `[${user.name}|${externalUrl}/${user.username}] mentioned this issue in [a ${entity} of ${projectFullName}|${url}]:\n'${title.replace(/\n+$/, '')}'`;
}

function mentionComment(notice: PushNotice, commit: PushDataCommit): string {
  const user = { name: notice.data.user_name ?? commit.author.name, username: notice.data.user_username ?? '' };
  return mention(user, notice.externalUrl, 'commit', notice.projectFullName, commit.url, commit.title);
}

/**
 * A merge request opened, reopened or edited comments on the Jira issues its title and
 * description name; merged into the default branch, it closes those its description closes,
 * with its head commit (GitLab's `diff_head_sha`).
 */
async function mergeRequestEvent(integration: IntegrationRecord, notice: ProjectEventNotice, io: OutboundIo): Promise<void> {
  const attributes = record(notice.data.object_attributes);
  const action = field(attributes, 'action');
  const title = field(attributes, 'title');
  const references = jiraReferences(`${title}\n\n${field(attributes, 'description')}`);
  const context = contextOf(integration, io);
  if (action === 'open' || action === 'reopen' || action === 'update') {
    const user = record(notice.data.user);
    const comment = mention({ name: field(user, 'name'), username: field(user, 'username') }, notice.externalUrl, 'merge request', notice.projectFullName, field(attributes, 'url'), title);
    for (const key of references.mentioned.slice(0, JIRA_MAX_REFERENCES_PER_PUSH)) await commentOnce(context, key, comment);
    return;
  }
  const head = field(record(attributes.last_commit), 'id');
  if (action !== 'merge' || head === '' || notice.defaultBranch === null || field(attributes, 'target_branch') !== notice.defaultBranch) return;
  const commit = { id: head, url: `${notice.projectUrl}/-/commit/${head}` };
  for (const key of references.closing.slice(0, JIRA_MAX_REFERENCES_PER_PUSH)) await close(context, key, transitionOf(integration), commit);
}
