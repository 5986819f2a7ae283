import type { Readable } from 'node:stream';
import { GantryError, validationFailed } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { NamespaceRecord, NamespacesStore, ProjectRecord, ProjectsStore, UserRecord, UsersStore } from '../../../storage/types.ts';
import type { UploadBlobs } from '../../../storage/types-uploads.ts';
import type { Lookup } from '../access/lookup.ts';
import type { Actor } from '../access/permissions.ts';
import { AVATAR_FORMATS, IMAGE_HEAD_LENGTH, imageContentType, imageTypeOf } from './image-types.ts';
import { safeFileName, withExtension } from './upload-names.ts';

/** GitLab's bound on avatars (`Avatarable`). */
export const AVATAR_SIZE_LIMIT = 200 * 1024;

export type AvatarOwner = 'user' | 'project' | 'group';

/** A file of a request, already on disk (the edge's upload, without its HTTP details). */
export interface ReceivedFile {
  filename: string;
  path: string;
  size: number;
  /** Past the route's size bound: only a prefix was written. */
  overLimit?: boolean;
}

/** An avatar whose size and content were checked, ready to be attached. */
export interface CheckedAvatar {
  readonly path: string;
  readonly fileName: string;
}

export interface AvatarsServiceDeps {
  blobs: UploadBlobs;
  users: Pick<UsersStore, 'update'>;
  projects: Pick<ProjectsStore, 'update'>;
  namespaces: Pick<NamespacesStore, 'update'>;
  lookup: Pick<Lookup, 'user' | 'readableProject' | 'readableGroup'>;
  logger: Logger;
}

/**
 * Avatars of users, projects and groups: checked by size (200 KB) and by content (the image
 * formats GitLab takes, told by their first bytes, not by the name), kept under the data
 * directory and served at `/uploads/-/system/<owner>/avatar/<id>/<name>`, the `avatar_url`
 * the API returns. A new avatar is moved in beside the old one, the row then points at it, and
 * only then are the directory's other files removed: the row never names a missing file.
 */
export class AvatarsService {
  private readonly files: AvatarFiles;

  constructor(private readonly deps: AvatarsServiceDeps) {
    this.files = new AvatarFiles(deps);
  }

  /** 400 `{avatar: [...]}` with GitLab's messages for a file too big or not an image. */
  async check(file: ReceivedFile): Promise<CheckedAvatar> {
    if (file.overLimit || file.size > AVATAR_SIZE_LIMIT) throw validationFailed({ avatar: ['is too big (should be at most 200 KB)'] });
    const type = imageTypeOf(await this.deps.blobs.head(file.path, IMAGE_HEAD_LENGTH));
    if (!type) {
      throw validationFailed({ avatar: [`file format is not supported. Please try one of the following supported formats: ${AVATAR_FORMATS.join(', ')}`] });
    }
    const name = withExtension(safeFileName(file.filename, `avatar.${type.extension}`), type.extension, type.extensions);
    return { path: file.path, fileName: name };
  }

  async attachToUser(user: UserRecord, avatar: CheckedAvatar): Promise<UserRecord> {
    const avatarUrl = await this.keep('user', user.id, avatar);
    const updated = (await this.deps.users.update(user.id, { avatar_url: avatarUrl })) ?? { ...user, avatar_url: avatarUrl };
    await this.files.removeReplaced('user', user.id, avatar.fileName);
    return updated;
  }

  async attachToProject(project: ProjectRecord, avatar: CheckedAvatar): Promise<ProjectRecord> {
    const avatarUrl = await this.keep('project', project.id, avatar);
    const updated = (await this.deps.projects.update(project.id, { avatar_url: avatarUrl })) ?? { ...project, avatar_url: avatarUrl };
    await this.files.removeReplaced('project', project.id, avatar.fileName);
    return updated;
  }

  async attachToGroup(group: NamespaceRecord, avatar: CheckedAvatar): Promise<NamespaceRecord> {
    const avatarUrl = await this.keep('group', group.id, avatar);
    const updated = (await this.deps.namespaces.update(group.id, { avatar_url: avatarUrl })) ?? { ...group, avatar_url: avatarUrl };
    await this.files.removeReplaced('group', group.id, avatar.fileName);
    return updated;
  }

  /**
   * The avatar at `/uploads/-/system/<owner>/avatar/<id>/<name>`: any user's, a project's or
   * group's the caller can read (else the same 404 as a missing one); only the current avatar.
   */
  async open(owner: AvatarOwner, id: string, fileName: string, actor: Actor): Promise<{ stream: Readable; size: number; contentType: string }> {
    const current = await this.currentAvatarUrl(owner, id, actor);
    const path = avatarPath(owner, id, fileName);
    const contentType = imageContentType(fileName);
    const kept = current === path && contentType ? await this.deps.blobs.open(avatarKey(owner, id, fileName)) : undefined;
    if (!kept || contentType === undefined) throw new GantryError('GANTRY_E_ROUTE_NOT_FOUND', 'Not Found');
    return { ...kept, contentType };
  }

  private async currentAvatarUrl(owner: AvatarOwner, id: string, actor: Actor): Promise<string | null> {
    if (!/^\d+$/.test(id)) throw new GantryError('GANTRY_E_ROUTE_NOT_FOUND', 'Not Found');
    if (owner === 'user') return (await this.deps.lookup.user(id)).avatar_url;
    if (owner === 'project') return (await this.deps.lookup.readableProject(id, actor)).avatar_url;
    return (await this.deps.lookup.readableGroup(id, actor)).avatar_url;
  }

  private async keep(owner: AvatarOwner, id: number, avatar: CheckedAvatar): Promise<string> {
    await this.deps.blobs.keep(avatar.path, avatarKey(owner, String(id), avatar.fileName));
    return avatarPath(owner, String(id), avatar.fileName);
  }
}

/**
 * Removes avatar files no row names any more: those of deleted users, groups and projects
 * (called once their rows are gone) and replaced ones. A failure is logged, never thrown: the
 * deletion or the new avatar has happened, and a file left behind is only disk space.
 */
export class AvatarFiles {
  constructor(private readonly deps: { blobs: Pick<UploadBlobs, 'removeDirectory'>; logger: Logger }) {}

  async removeFor(owner: AvatarOwner, ids: readonly number[]): Promise<void> {
    for (const id of ids) await this.remove(owner, id);
  }

  async removeReplaced(owner: AvatarOwner, id: number, currentFileName: string): Promise<void> {
    await this.remove(owner, id, currentFileName);
  }

  private async remove(owner: AvatarOwner, id: number, except?: string): Promise<void> {
    try {
      await this.deps.blobs.removeDirectory(avatarDirectoryKey(owner, String(id)), { except });
    } catch (error) {
      this.deps.logger.warn({ err: error, owner, id }, 'removing avatar files failed');
    }
  }
}

/** The path part of an avatar's URL (the serializers put the external URL before it). */
export function avatarPath(owner: AvatarOwner, id: string, fileName: string): string {
  return `/uploads/-/system/${owner}/avatar/${id}/${fileName}`;
}

function avatarKey(owner: AvatarOwner, id: string, fileName: string): string[] {
  return [...avatarDirectoryKey(owner, id), fileName];
}

function avatarDirectoryKey(owner: AvatarOwner, id: string): string[] {
  return ['system', owner, 'avatar', id];
}
