import type { FastifyReply, FastifyRequest } from 'fastify';
import { GantryError } from '../../shared/errors.ts';
import type { GitArchiveFormat } from '../../storage/git/types.ts';
import type { CoordinatorContext } from '../context.ts';
import { RepositoryAccess } from '../services/repository/access.ts';
import { archiveFormat, BrowsingService } from '../services/repository/browsing.ts';
import type { Authenticator } from './auth.ts';
import { contentDisposition, withFirstChunk } from './blob-response.ts';
import type { RequestThrottles } from './throttle.ts';

/** Workhorse's content types for archives. */
export const ARCHIVE_CONTENT_TYPE: Record<GitArchiveFormat, string> = {
  zip: 'application/zip',
  tar: 'application/octet-stream',
  'tar.gz': 'application/octet-stream',
  'tar.bz2': 'application/octet-stream',
};

/** Longest first, so `x.tar.gz` is a tar.gz and not a gz. */
const ARCHIVE_SUFFIXES = ['tar.gz', 'tar.bz2', 'tgz', 'tbz2', 'tbz', 'tb2', 'tar', 'zip', 'bz2', 'gz'];

const ARCHIVE_PATH = /^\/(.+?)\/-\/archive\/(.+)\/([^/]+)$/;
const RELEASE_DOWNLOAD_PATH = /^\/(.+?)\/-\/releases\/(.+?)\/downloads(\/.+)$/;

export type WebDownload =
  | { kind: 'archive'; projectPath: string; ref: string; format: GitArchiveFormat }
  | { kind: 'release-asset'; projectPath: string; tagName: string; filepath: string };

/** The two web addresses the API hands out for downloads (release sources and asset links), or null. */
export function classifyWebDownload(urlPath: string): WebDownload | null {
  const archive = ARCHIVE_PATH.exec(urlPath);
  if (archive) {
    const [, projectPath, ref, fileName] = archive as unknown as [string, string, string, string];
    const suffix = ARCHIVE_SUFFIXES.find((candidate) => fileName.endsWith(`.${candidate}`));
    const format = suffix === undefined ? undefined : archiveFormat(suffix);
    return format ? { kind: 'archive', projectPath, ref, format } : null;
  }
  const asset = RELEASE_DOWNLOAD_PATH.exec(urlPath);
  if (asset) {
    const [, projectPath, tagName, filepath] = asset as unknown as [string, string, string, string];
    return { kind: 'release-asset', projectPath, tagName, filepath };
  }
  return null;
}

/**
 * Serves `/<project>/-/archive/<ref>/<name>.<format>` (the release `assets.sources` URLs) and
 * redirects `/<project>/-/releases/<tag>/downloads/<filepath>` to the asset link's URL. The
 * caller signs in as on the API (token header or `private_token`); public projects need none.
 */
export class WebDownloads {
  private readonly access: RepositoryAccess;
  private readonly browsing = new BrowsingService();

  constructor(
    private readonly context: CoordinatorContext,
    private readonly authenticator: Authenticator,
    private readonly throttles?: RequestThrottles,
  ) {
    this.access = new RepositoryAccess(context);
  }

  async serve(download: WebDownload, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const failure = await this.authenticator.authenticate(request).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (this.throttles && (await this.throttles.refuse(request, reply, 'web'))) return reply;
    if (failure !== undefined) throw failure;
    const target = await this.access.forRead(download.projectPath, request.actor);
    if (download.kind === 'archive') {
      const archive = await this.browsing.archive(target, download.ref, download.format);
      const { body } = await withFirstChunk(archive.stream);
      reply.header('Content-Disposition', contentDisposition('attachment', archive.fileName));
      return reply.type(ARCHIVE_CONTENT_TYPE[download.format]).send(body);
    }
    const release = await this.context.stores.releases.find(target.project.id, download.tagName);
    const links = release ? ((await this.context.stores.releaseLinks.listForReleases([release.id])).get(release.id) ?? []) : [];
    const link = links.find((candidate) => candidate.filepath === download.filepath);
    if (!link) throw new GantryError('GANTRY_E_RELEASE_LINK_NOT_FOUND');
    return reply.redirect(link.url, 302);
  }
}
