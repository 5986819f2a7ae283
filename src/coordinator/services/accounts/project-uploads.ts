import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { GantryError } from '../../../shared/errors.ts';
import type { UploadBlobs } from '../../../storage/types-uploads.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor } from '../access/permissions.ts';
import type { SettingsService } from '../instance/settings.ts';
import { projectFullPathIn } from '../namespaces/project-full-path.ts';
import type { ReceivedFile } from './avatars.ts';
import { IMAGE_HEAD_LENGTH, imageTypeOf } from './image-types.ts';
import { safeFileName } from './upload-names.ts';

/** What `POST /projects/:id/uploads` answers (GitLab's markdown-ready upload). */
export interface ProjectUploadView {
  alt: string;
  /** Relative to the project's web address. */
  url: string;
  /** From the instance's root. */
  full_path: string;
  markdown: string;
}

export interface ProjectUploadsServiceDeps {
  blobs: UploadBlobs;
  lookup: Pick<Lookup, 'readableProject' | 'findNamespace'>;
  settings: Pick<SettingsService, 'values'>;
}

const SECRET = /^[0-9a-f]{32}$/;

/**
 * Files attached to a project's issues and comments (`POST /projects/:id/uploads`), kept
 * under the data directory by project id and a random secret, and served at
 * `/<namespace>/<project>/uploads/<secret>/<name>` to those who can read the project.
 */
export class ProjectUploadsService {
  constructor(private readonly deps: ProjectUploadsServiceDeps) {}

  /** The application setting `max_attachment_size` (MB) in bytes: the bound on each upload. */
  async sizeLimit(): Promise<number> {
    return Number((await this.deps.settings.values()).max_attachment_size) * 1024 * 1024;
  }

  /** Keeps the file (413 past `max_attachment_size`); the answer's markdown is an image link when the content is an image. */
  async upload(projectRef: string, actor: Actor, file: ReceivedFile): Promise<ProjectUploadView> {
    const project = await this.deps.lookup.readableProject(projectRef, actor);
    if (actor === null) throw new GantryError('GANTRY_E_AUTHENTICATION_REQUIRED');
    if (file.overLimit || file.size > (await this.sizeLimit())) throw new GantryError('GANTRY_E_BODY_TOO_LARGE', `the file ${file.filename} is over max_attachment_size`);
    const namespace = await this.deps.lookup.findNamespace(project.namespace_id);
    if (!namespace) throw new GantryError('GANTRY_E_PROJECT_NOT_FOUND');
    const secret = randomBytes(16).toString('hex');
    const name = safeFileName(file.filename, 'file');
    const isImage = imageTypeOf(await this.deps.blobs.head(file.path, IMAGE_HEAD_LENGTH)) !== undefined;
    await this.deps.blobs.keep(file.path, uploadKey(project.id, secret, name));
    const url = `/uploads/${secret}/${name}`;
    // GitLab's alt text: an image's name without its extension, any other file's whole name.
    const alt = isImage ? name.replace(/\.[^.]*$/, '') : name;
    return { alt, url, full_path: `/${projectFullPathIn(namespace, project)}${url}`, markdown: `${isImage ? '!' : ''}[${alt}](${url})` };
  }

  /** A kept upload of a project the caller can read; the same 404 for a missing file as for an unreadable project. */
  async open(projectPath: string, secret: string, fileName: string, actor: Actor): Promise<{ stream: Readable; size: number; imageType?: string }> {
    const project = await this.deps.lookup.readableProject(projectPath, actor);
    const valid = SECRET.test(secret) && safeFileName(fileName, '') === fileName;
    const kept = valid ? await this.deps.blobs.open(uploadKey(project.id, secret, fileName)) : undefined;
    if (!kept) throw new GantryError('GANTRY_E_ROUTE_NOT_FOUND', 'Not Found');
    const head = await this.deps.blobs.keptHead(uploadKey(project.id, secret, fileName), IMAGE_HEAD_LENGTH);
    return { ...kept, imageType: imageTypeOf(head)?.contentType };
  }
}

function uploadKey(projectId: number, secret: string, name: string): string[] {
  return ['project', String(projectId), secret, name];
}
