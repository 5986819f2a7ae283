import { html, type Markup } from './html.ts';

const ICONS: Readonly<Record<string, string>> = {
  success: '✓', failed: '✗', running: '▶', pending: '◷', created: '○', canceling: '⊘', canceled: '⊘',
  skipped: '»', manual: '⚙', scheduled: '⏲', waiting_for_resource: '◷', preparing: '◷',
};

/** A status's icon; the status is always written out beside it (colour and icon alone do not say it). */
export function statusIcon(status: string): string {
  return ICONS[status] ?? '•';
}

export function statusLabel(status: string): Markup {
  return html`<span class="status status-${status}"><span aria-hidden="true">${statusIcon(status)}</span> ${status}</span>`;
}

/** `1h 02m 03s`, `2m 05s`, `7s`. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = whole % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m ${String(rest).padStart(2, '0')}s`;
  if (minutes > 0) return `${minutes}m ${String(rest).padStart(2, '0')}s`;
  return `${rest}s`;
}

/** A job's duration: finished minus started, or so far while it runs. */
export function jobDuration(job: { started_at: string | null; finished_at: string | null }, now = Date.now()): number | null {
  if (job.started_at === null) return null;
  const end = job.finished_at === null ? now : Date.parse(job.finished_at);
  return Math.max(0, (end - Date.parse(job.started_at)) / 1000);
}

/** `/group/project` with the mount prefix. */
export function projectHref(prefix: string, fullPath: string): string {
  return `${prefix}/${fullPath.split('/').map(encodeURIComponent).join('/')}`;
}

/** A ref or file path in a URL: each segment encoded, the slashes kept. */
export function pathHref(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}
