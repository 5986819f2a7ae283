import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GitArchiveFormat } from '../../storage/git/types.ts';
import { repositoryClient } from '../api/repository/client.ts';
import { archiveFormat, type BrowsingService } from '../services/repository/browsing.ts';
import type { ReleaseLinksService } from '../services/repository/release-links.ts';
import type { AvatarOwner, AvatarsService } from '../services/accounts/avatars.ts';
import type { ProjectUploadsService } from '../services/accounts/project-uploads.ts';
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
const AVATAR_PATH = /^\/uploads\/-\/system\/(user|project|group)\/avatar\/([^/]+)\/([^/]+)$/;
const PROJECT_UPLOAD_PATH = /^\/(.+?\/[^/]+)\/uploads\/([^/]+)\/([^/]+)$/;

export type WebDownload =
  | { kind: 'archive'; projectPath: string; ref: string; format: GitArchiveFormat }
  | { kind: 'release-asset'; projectPath: string; tagName: string; filepath: string }
  | { kind: 'avatar'; owner: AvatarOwner; id: string; fileName: string }
  | { kind: 'project-upload'; projectPath: string; secret: string; fileName: string };

/** The web addresses the API hands out for downloads (release sources and asset links, avatars, project uploads), or null. */
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
  const avatar = AVATAR_PATH.exec(urlPath);
  if (avatar) {
    const [, owner, id, fileName] = avatar as unknown as [string, AvatarOwner, string, string];
    return { kind: 'avatar', owner, id, fileName };
  }
  const upload = PROJECT_UPLOAD_PATH.exec(urlPath);
  if (upload) {
    const [, projectPath, secret, fileName] = upload as unknown as [string, string, string, string];
    return { kind: 'project-upload', projectPath, secret, fileName };
  }
  return null;
}

/**
 * Serves `/<project>/-/archive/<ref>/<name>.<format>` (the release `assets.sources` URLs) and
 * redirects `/<project>/-/releases/<tag>/downloads/<filepath>` to the asset link's URL. The
 * caller signs in as on the API (token header or `private_token`); public projects need none.
 */
export interface DownloadServices {
  browsing: Pick<BrowsingService, 'archive'>;
  releaseLinks: Pick<ReleaseLinksService, 'downloadUrl'>;
  avatars: Pick<AvatarsService, 'open'>;
  projectUploads: Pick<ProjectUploadsService, 'open'>;
}

export class WebDownloads {
  constructor(
    private readonly services: DownloadServices,
    private readonly authenticator: Authenticator,
    private readonly throttles?: RequestThrottles,
  ) {}

  async serve(download: WebDownload, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const failure = await this.authenticator.authenticate(request).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (this.throttles && (await this.throttles.refuse(request, reply, 'web'))) return reply;
    if (failure !== undefined) throw failure;
    if (download.kind === 'archive') {
      const archive = await this.services.browsing.archive(download.projectPath, request.actor, download.ref, download.format, repositoryClient(request, reply));
      const { body } = await withFirstChunk(archive.stream);
      reply.header('Content-Disposition', contentDisposition('attachment', archive.fileName));
      return reply.type(ARCHIVE_CONTENT_TYPE[download.format]).send(body);
    }
    if (download.kind === 'avatar') {
      const avatar = await this.services.avatars.open(download.owner, download.id, download.fileName, request.actor);
      return reply.type(avatar.contentType).header('Content-Length', avatar.size).header('X-Content-Type-Options', 'nosniff').send(avatar.stream);
    }
    if (download.kind === 'project-upload') {
      const upload = await this.services.projectUploads.open(download.projectPath, download.secret, download.fileName, request.actor);
      // Only images are shown inline: any other file is a download, so an uploaded page never runs as the instance's.
      if (upload.imageType === undefined) reply.header('Content-Disposition', contentDisposition('attachment', download.fileName));
      return reply.type(upload.imageType ?? 'application/octet-stream').header('Content-Length', upload.size).header('X-Content-Type-Options', 'nosniff').send(upload.stream);
    }
    return reply.redirect(await this.services.releaseLinks.downloadUrl(download.projectPath, request.actor, download.tagName, download.filepath), 302);
  }
}
