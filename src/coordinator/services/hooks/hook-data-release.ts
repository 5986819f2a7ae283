import type { GitTag } from '../../../storage/git/types.ts';
import type { ReleaseLinkRecord, ReleaseRecord } from '../../../storage/types-repository.ts';
import { projectHookData, projectWebUrl, type HookProject } from './hook-data-common.ts';

/** The archive formats a release's `assets.sources` name (GitLab's). */
const SOURCE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

/** GitLab's Release#hook_attrs with its `object_kind`, `project`, `url`, `action`, `assets` and `commit`. */
export function releaseHookData(target: HookProject, release: ReleaseRecord, tag: GitTag | null, links: readonly ReleaseLinkRecord[], action: 'create' | 'update' | 'delete'): Record<string, unknown> {
  const webUrl = projectWebUrl(target);
  const commit = tag?.commit ?? null;
  const encodedTag = encodeURIComponent(release.tag_name);
  return {
    id: release.id,
    created_at: release.created_at,
    description: release.description,
    name: release.name ?? release.tag_name,
    released_at: release.released_at ?? release.created_at,
    tag: release.tag_name,
    object_kind: 'release',
    project: projectHookData(target),
    url: `${webUrl}/-/releases/${encodedTag}`,
    action,
    assets: {
      count: links.length + SOURCE_FORMATS.length,
      links: links.map((link) => ({ id: link.id, external: true, link_type: link.link_type, name: link.name, url: link.url })),
      sources: SOURCE_FORMATS.map((format) => ({ format, url: `${webUrl}/-/archive/${encodedTag}/${target.project.path}-${encodedTag}.${format}` })),
    },
    commit: commit
      ? { id: commit.id, message: commit.message, title: commit.title, timestamp: commit.author.date, url: `${webUrl}/-/commit/${commit.id}`, author: { name: commit.author.name, email: commit.author.email } }
      : null,
  };
}
