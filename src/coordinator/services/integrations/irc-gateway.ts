import { pushFlags, text, ZERO_SHA, type OutboundIntegration, type PushNotice } from './outbound-types.ts';

/** Commits announced one by one (GitLab's irker worker: 3, as GitHub's IRC hook). */
const ANNOUNCED_COMMITS = 3;
const DEFAULT_HOST = 'localhost';
const DEFAULT_PORT = 6659;

/** mIRC colour codes GitLab's irker worker uses when `colorize_messages` is on. */
const colour = (on: boolean, code: string, value: string): string => (on ? `${code}${value}\x0f` : value);

/**
 * The IRC targets of `recipients` (whitespace-separated): a full `irc://` or `ircs://` URI as it
 * is, else the recipient joined to `default_irc_uri` (`#chan` → `irc://host:6697/#chan`); others
 * are dropped.
 */
export function ircChannels(recipients: string, defaultUri: string): string[] {
  const channels: string[] = [];
  for (const recipient of recipients.split(/\s+/).filter(Boolean)) {
    const channel = ircUri(recipient) ?? (defaultUri === '' ? null : joined(defaultUri, recipient));
    if (channel !== null) channels.push(channel);
  }
  return channels;
}

function ircUri(candidate: string): string | null {
  try {
    const url = new URL(candidate);
    return /^ircs?:$/.test(url.protocol) ? candidate : null;
  } catch {
    return null;
  }
}

function joined(defaultUri: string, recipient: string): string | null {
  try {
    return ircUri(new URL(recipient, new URL('/', defaultUri)).toString());
  } catch {
    return null;
  }
}

/** The lines GitLab's irker worker sends for a push: branch created or deleted, then the commit count and up to three commits. */
export async function ircMessages(notice: PushNotice, colours: boolean): Promise<string[]> {
  const { data } = notice;
  const repository = colour(colours, '\x0304', data.repository.name);
  const branch = colour(colours, '\x0305', data.ref.replace(/^refs\/[^/]*\//, ''));
  const committer = data.user_name ?? '';
  const messages: string[] = [];
  if (data.before === ZERO_SHA) {
    const branches = colour(colours, '\x0302\x1f', `${notice.externalUrl}/${data.project.path_with_namespace}/branches`);
    messages.push(`[${repository}] ${committer} has created a new branch ${branch}: ${branches}`);
  } else if (data.after === ZERO_SHA) {
    messages.push(`[${repository}] ${committer} has deleted the branch ${branch}`);
  }
  if (data.total_commits_count === 0 || data.commits.length === 0) return messages;
  // A new branch compares from the first parent of its oldest listed commit, as GitLab does.
  const from = data.before === ZERO_SHA ? ((await notice.parentOf(data.commits[0]!.id)) ?? data.before) : data.before;
  const compare = colour(colours, '\x0302\x1f', `${notice.externalUrl}/${data.project.path_with_namespace}/compare/${from.slice(0, 8)}...${data.after.slice(0, 8)}`);
  const count = colour(colours, '\x02', String(data.total_commits_count));
  messages.push(`[${repository}] ${committer} pushed ${count} new commit${data.total_commits_count > 1 ? 's' : ''} to ${branch}: ${compare}`);
  for (const commit of data.commits.slice(0, ANNOUNCED_COMMITS)) {
    const files = commit.added.length + commit.modified.length + commit.removed.length;
    const sha = colour(colours, '\x0314', commit.id.slice(0, 8));
    const fileCount = colour(colours, '\x0312', `${files} file${files > 1 ? 's' : ''}`);
    messages.push(`${repository}/${branch} ${sha} ${commit.author.name} (${fileCount}): ${commit.title}`);
  }
  return messages;
}

/**
 * GitLab's Irker (IRC gateway): on a branch push, one JSON line per message,
 * `{"to": [channels], "privmsg": "…"}`, over TCP to the irker daemon at `server_host`
 * (default localhost) and `server_port` (default 6659).
 */
export const ircGateway: OutboundIntegration = {
  slug: 'irc-gateway',
  subscribed: pushFlags(false),
  async deliver(integration, notice, io) {
    const channels = ircChannels(text(integration, 'recipients'), text(integration, 'default_irc_uri'));
    if (channels.length === 0) return;
    const messages = await ircMessages(notice, integration.properties.colorize_messages === true);
    if (messages.length === 0) return;
    const port = integration.properties.server_port;
    await io.sendLines(
      text(integration, 'server_host') || DEFAULT_HOST,
      typeof port === 'number' ? port : DEFAULT_PORT,
      messages.map((privmsg) => JSON.stringify({ to: channels, privmsg })),
    );
  },
};
