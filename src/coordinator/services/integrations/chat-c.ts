import { base, escapeHtml, pushFlags, secret, text, ZERO_SHA, type OutboundIntegration, type PushNotice } from './outbound-types.ts';

/** Commits a push message lists (GitLab's HipChat: 3, then "... N more commits"). */
const LISTED_COMMITS = 3;
/** Characters of a commit's first line in the message. */
const LINE_CHARS = 200;

const firstLine = (message: string): string => {
  const line = message.split('\n', 1)[0] ?? '';
  return line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 3)}...` : line;
};

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
  const projectLink = `<a href="${escapeHtml(projectUrl)}">${escapeHtml(notice.projectFullName.replace(/\s/g, ''))}</a>`;
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
 * GitLab's HipChat: a room notification from `GitLab` through the HipChat API of `api_version`
 * (v2 unless `v1`) on `server` (default https://api.hipchat.com), the room token in the query.
 */
export const chatC: OutboundIntegration = {
  slug: 'chat-c',
  subscribed: pushFlags(true),
  async deliver(integration, notice, io) {
    const room = text(integration, 'room');
    if (room === '') return;
    const server = base(text(integration, 'server') || 'https://api.hipchat.com');
    const token = new URLSearchParams({ auth_token: secret(integration, 'token') }).toString();
    const color = text(integration, 'color') || 'yellow';
    const notify = integration.properties.notify === true;
    const message = chatPushMessage(notice);
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
  },
};
