import type { IntegrationRecord } from '../../../storage/types-integrations.ts';
import { base, escapeHtml, field, pushFlags, record, secret, text, ZERO_SHA, type OutboundIntegration, type OutboundIo, type ProjectEventNotice, type PushNotice } from './outbound-types.ts';

/** Commits a push message lists (GitLab's HipChat: 3, then "... N more commits"). */
const LISTED_COMMITS = 3;
/** Characters of a commit's first line in the message. */
const LINE_CHARS = 200;

/** GitLab's `truncate(200, separator: ' ', omission: '...')`. */
const truncated = (value: string): string => {
  if (value.length <= LINE_CHARS) return value;
  const cut = value.slice(0, LINE_CHARS - 3);
  const space = cut.lastIndexOf(' ');
  return `${space > 0 ? cut.slice(0, space) : cut}...`;
};

const firstLine = (message: string): string => truncated(message.split('\n', 1)[0] ?? '');
const projectLinkOf = (url: string, fullName: string): string => `<a href="${escapeHtml(url)}">${escapeHtml(fullName.replace(/\s/g, ''))}</a>`;

/**
 * GitLab's HipChat push message (HTML): who pushed, a new or removed branch or tag, or the
 * first three commits of an update with a compare link.
 */
export function chatPushMessage(notice: PushNotice): string {
  const { data } = notice;
  const refType = notice.kind === 'tag_push' ? 'tag' : 'branch';
  const ref = data.ref.replace(/^refs\/(heads|tags)\//, '');
  const projectUrl = data.project.web_url;
  // GitLab writes the project's full name without its spaces here: `Group/Project`.
  const projectLink = projectLinkOf(projectUrl, notice.projectFullName);
  const refLink = `<a href="${escapeHtml(`${projectUrl}/commits/${encodeURIComponent(ref)}`)}">${escapeHtml(ref)}</a>`;
  let message = `${escapeHtml(data.user_name ?? '')} `;
  if (data.before === ZERO_SHA) return `${message}pushed new ${refType} ${refLink} to ${projectLink}\n`;
  if (data.after === ZERO_SHA) return `${message}removed ${refType} <b>${escapeHtml(ref)}</b> from ${projectLink} \n`;
  message += `pushed to ${refType} ${refLink} of ${projectLink} (<a href="${escapeHtml(`${projectUrl}/compare/${data.before}...${data.after}`)}">Compare changes</a>)`;
  for (const commit of data.commits.slice(0, LISTED_COMMITS)) {
    message += `<br /> - ${escapeHtml(firstLine(commit.message))} (<a href="${escapeHtml(commit.url)}">${commit.id.slice(0, 6)}</a>)`;
  }
  if (data.commits.length > LISTED_COMMITS) message += `<br />... ${data.commits.length - LISTED_COMMITS} more commits`;
  return message;
}

/**
 * GitLab's HipChat message of an issue, merge request, note or pipeline event; null when it
 * sends none (an edit, a pipeline that did not fail: GitLab's `notify_only_broken_pipelines`,
 * on by default, is not a setting of chat C).
 */
export function chatEventMessage(notice: ProjectEventNotice): string | null {
  const { data } = notice;
  const attributes = record(data.object_attributes);
  const user = escapeHtml(field(record(data.user), 'name'));
  const projectLink = projectLinkOf(notice.projectUrl, notice.projectFullName);
  const body = (value: string) => `<pre>${escapeHtml(truncated(value))}</pre>`;
  const link = (url: string, label: string) => `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>`;
  switch (data.object_kind) {
    case 'issue':
    case 'merge_request': {
      if (field(attributes, 'action') === 'update') return null;
      const iid = field(attributes, 'iid');
      const subject = data.object_kind === 'issue' ? link(field(attributes, 'url'), `issue #${iid}`) : link(`${notice.projectUrl}/-/merge_requests/${iid}`, `merge request !${iid}`);
      return `${user} ${escapeHtml(field(attributes, 'state'))} ${subject} in ${projectLink}: <b>${escapeHtml(firstLine(field(attributes, 'title')))}</b>${body(field(attributes, 'description'))}`;
    }
    case 'note': {
      const type = field(attributes, 'noteable_type');
      const noteable = record(type === 'Issue' ? data.issue : type === 'MergeRequest' ? data.merge_request : data.commit);
      const subject = type === 'Issue' ? `issue #${field(noteable, 'iid')}` : type === 'MergeRequest' ? `merge request !${field(noteable, 'iid')}` : `commit ${field(noteable, 'id').slice(0, 8)}`;
      const title = type === 'Commit' ? field(noteable, 'message') : field(noteable, 'title');
      return `${user} commented on ${link(field(attributes, 'url'), subject)} in ${projectLink}: <b>${escapeHtml(firstLine(title))}</b>${body(field(attributes, 'note'))}`;
    }
    case 'pipeline': {
      if (field(attributes, 'status') !== 'failed') return null;
      const id = field(attributes, 'id');
      const ref = field(attributes, 'ref');
      const refType = attributes.tag === true ? 'tag' : 'branch';
      const by = user === '' ? 'API' : user;
      const duration = field(attributes, 'duration');
      return `${projectLink}: Pipeline ${link(`${notice.projectUrl}/-/pipelines/${id}`, `#${id}`)} of ${link(`${notice.projectUrl}/-/commits/${encodeURIComponent(ref)}`, ref)} ${refType} by ${by} failed in ${duration} second(s)`;
    }
    default:
      return null;
  }
}

async function notifyRoom(integration: IntegrationRecord, message: string, color: string, io: OutboundIo): Promise<void> {
  const room = text(integration, 'room');
  if (room === '') return;
  const server = base(text(integration, 'server') || 'https://api.hipchat.com');
  const token = new URLSearchParams({ auth_token: secret(integration, 'token') }).toString();
  const notify = integration.properties.notify === true;
  if (text(integration, 'api_version') === 'v1') {
    const form = new URLSearchParams({ room_id: room, from: 'GitLab', message, message_format: 'html', color, notify: notify ? '1' : '0' });
    await io.send({ method: 'POST', url: `${server}/v1/rooms/message?${token}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    return;
  }
  await io.send({
    method: 'POST',
    url: `${server}/v2/room/${encodeURIComponent(room)}/notification?${token}`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ room_id: room, from: 'GitLab', message, message_format: 'html', color, notify }),
  });
}

/**
 * GitLab's HipChat: a room notification from `GitLab` through the HipChat API of `api_version`
 * (v2 unless `v1`) on `server` (default https://api.hipchat.com), the room token in the query,
 * of pushes, issues, merge requests, notes and failed pipelines.
 */
export const chatC: OutboundIntegration = {
  slug: 'chat-c',
  subscribed: pushFlags(true),
  hears: ['issues_events', 'confidential_issues_events', 'merge_requests_events', 'note_events', 'confidential_note_events', 'pipeline_events'],
  async deliver(integration, notice, io) {
    await notifyRoom(integration, chatPushMessage(notice), text(integration, 'color') || 'yellow', io);
  },
  async deliverEvent(integration, notice, io) {
    const message = chatEventMessage(notice);
    // A pipeline's colour is its outcome's (only failures are sent: red).
    const color = notice.data.object_kind === 'pipeline' ? 'red' : text(integration, 'color') || 'yellow';
    if (message !== null) await notifyRoom(integration, message, color, io);
  },
};
