import type { NamespaceRecord, ProjectRecord, UserRecord } from '../../../storage/types.ts';
import { projectFullPathIn } from '../namespaces/project-full-path.ts';

const VISIBILITY_LEVELS = { private: 0, internal: 10, public: 20 } as const;

/** A project with what its hook data names it by (`namespace/path` and the namespace's name). */
export interface HookProject {
  project: ProjectRecord;
  namespace: NamespaceRecord | undefined;
  /** The coordinator's external URL, without a trailing slash. */
  externalUrl: string;
}

export function projectPath(target: HookProject): string {
  return projectFullPathIn(target.namespace, target.project);
}

export function projectWebUrl(target: HookProject): string {
  return `${target.externalUrl}/${projectPath(target)}`;
}

/** GitLab's Project#hook_attrs. */
export function projectHookData(target: HookProject): Record<string, unknown> {
  const webUrl = projectWebUrl(target);
  const httpUrl = `${webUrl}.git`;
  return {
    id: target.project.id,
    name: target.project.name,
    description: target.project.description,
    web_url: webUrl,
    avatar_url: target.project.avatar_url,
    git_ssh_url: null,
    git_http_url: httpUrl,
    namespace: target.namespace?.name ?? '',
    visibility_level: VISIBILITY_LEVELS[target.project.visibility],
    path_with_namespace: projectPath(target),
    default_branch: target.project.default_branch,
    ci_config_path: target.project.ci_config_path,
    homepage: webUrl,
    url: httpUrl,
    ssh_url: null,
    http_url: httpUrl,
  };
}

/** GitLab's Project#hook_attrs' older `repository` block. */
export function repositoryHookData(target: HookProject): Record<string, unknown> {
  const webUrl = projectWebUrl(target);
  return { name: target.project.name, url: `${webUrl}.git`, description: target.project.description, homepage: webUrl };
}

/**
 * GitLab's User#hook_attrs. Its `email` is the user's public address or `[REDACTED]`; Gantry
 * keeps no public address, so it is always `[REDACTED]` (push data leave it blank, as before).
 */
export function userHookData(user: UserRecord | null | undefined): Record<string, unknown> | null {
  if (!user) return null;
  return { id: user.id, name: user.name, username: user.username, avatar_url: user.avatar_url, email: '[REDACTED]' };
}

/** `{ previous, current }` for each key whose value differs (GitLab's `changes`), compared as JSON. */
export function changesBetween(before: Record<string, unknown>, after: Record<string, unknown>, keys: readonly string[]): Record<string, { previous: unknown; current: unknown }> {
  const changes: Record<string, { previous: unknown; current: unknown }> = {};
  for (const key of keys) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changes[key] = { previous: before[key] ?? null, current: after[key] ?? null };
  }
  return changes;
}

/** GitLab's `human_time_*` form (`1h 30m`), blank for zero. */
export function humanDuration(seconds: number): string | null {
  if (seconds <= 0) return null;
  const units: Array<[string, number]> = [['w', 5 * 8 * 3600], ['d', 8 * 3600], ['h', 3600], ['m', 60], ['s', 1]];
  const parts: string[] = [];
  let left = seconds;
  for (const [unit, size] of units) {
    const count = Math.floor(left / size);
    if (count > 0) parts.push(`${count}${unit}`);
    left -= count * size;
  }
  return parts.join(' ');
}
