import type { ReleaseView } from '../../../services/repository/releases.ts';
import { releasedAt } from '../../../services/repository/releases.ts';
import type { ReleaseLinkRecord } from '../../../../storage/types-repository.ts';
import { serializeCommit, type CommitJson, type CommitUrlBase } from './commits.ts';
import { serializeUserBasic, type UserBasicJson } from '../user-basic.ts';
import { serializeMilestone, type MilestoneJson } from '../planning/milestones.ts';

const ARCHIVE_FORMATS = ['zip', 'tar.gz', 'tar.bz2', 'tar'] as const;

export interface ReleaseDetailJson {
  tag_name: string;
  description: string;
  name: string;
  created_at: string;
  released_at: string;
  author: UserBasicJson | null;
  commit: CommitJson | null;
  upcoming_release: boolean;
  /** Only when the release has milestones the caller may read. */
  milestones?: Array<MilestoneJson & { issue_stats: { total: number; closed: number } }>;
  commit_path: string | null;
  tag_path: string;
  assets: { count: number; sources: Array<{ format: string; url: string }>; links: ReleaseLinkJson[] };
  evidences: never[];
  _links: { self: string; edit_url: string };
}

const pathOf = (name: string): string => name.split('/').map(encodeURIComponent).join('/');

export interface ReleaseLinkJson {
  id: number;
  name: string;
  url: string;
  /** The stable `/-/releases/<tag>/downloads<filepath>` address when a filepath is set, else the URL. */
  direct_asset_url: string;
  /** Whether the URL points outside this instance. */
  external: boolean;
  link_type: string;
}

export function serializeReleaseLink(link: ReleaseLinkRecord, tagName: string, base: CommitUrlBase): ReleaseLinkJson {
  const releasePage = `${base.externalUrl}/${base.projectFullPath}/-/releases/${pathOf(tagName)}`;
  return {
    id: link.id,
    name: link.name,
    url: link.url,
    direct_asset_url: link.filepath === null ? link.url : `${releasePage}/downloads${link.filepath}`,
    external: !link.url.startsWith(`${base.externalUrl}/`),
    link_type: link.link_type,
  };
}

/** A release as GitLab's Releases API shows it; URLs point at the web pages and archives. */
export function serializeReleaseDetail(view: ReleaseView, base: CommitUrlBase, now = new Date().toISOString()): ReleaseDetailJson {
  const { release, tag } = view;
  const project = `/${base.projectFullPath}`;
  const projectName = base.projectFullPath.split('/').at(-1) ?? '';
  const archiveName = `${projectName}-${release.tag_name.replaceAll('/', '-')}`;
  const self = `${base.externalUrl}${project}/-/releases/${pathOf(release.tag_name)}`;
  const sources = ARCHIVE_FORMATS.map((format) => ({
    format,
    url: `${base.externalUrl}${project}/-/archive/${pathOf(release.tag_name)}/${encodeURIComponent(archiveName)}.${format}`,
  }));
  return {
    tag_name: release.tag_name,
    description: release.description,
    name: release.name ?? release.tag_name,
    created_at: release.created_at,
    released_at: releasedAt(release),
    author: view.author ? serializeUserBasic(view.author, base.externalUrl) : null,
    commit: tag ? serializeCommit(tag.commit, base) : null,
    upcoming_release: releasedAt(release) > now,
    ...(view.milestones.length > 0 ? { milestones: view.milestones.map((milestone) => ({ ...serializeMilestone(milestone, base.externalUrl), issue_stats: milestone.issueStats })) } : {}),
    commit_path: tag ? `${project}/-/commit/${tag.commit.id}` : null,
    tag_path: `${project}/-/tags/${pathOf(release.tag_name)}`,
    assets: { count: sources.length + view.links.length, sources, links: view.links.map((link) => serializeReleaseLink(link, release.tag_name, base)) },
    evidences: [],
    _links: { self, edit_url: `${self}/edit` },
  };
}
