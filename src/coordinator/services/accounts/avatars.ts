import type { Readable } from 'node:stream';
import { GantryError, validationFailed } from '../../../shared/errors.ts';
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
}

/**
 * Avatars of users, projects and groups: checked by size (200 KB) and by content (the image
 * formats GitLab takes, told by their first bytes, not by the name), kept under the data
 * directory and served at `/uploads/-/system/<owner>/avatar/<id>/<name>`, the `avatar_url`
 * the API returns.
 */
export class AvatarsService {
  constructor(private readonly deps: AvatarsServiceDeps) {}

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
    return (await this.deps.users.update(user.id, { avatar_url: avatarUrl })) ?? { ...user, avatar_url: avatarUrl };
  }

  async attachToProject(project: ProjectRecord, avatar: CheckedAvatar): Promise<ProjectRecord> {
    const avatarUrl = await this.keep('project', project.id, avatar);
    return (await this.deps.projects.update(project.id, { avatar_url: avatarUrl })) ?? { ...project, avatar_url: avatarUrl };
  }

  async attachToGroup(group: NamespaceRecord, avatar: CheckedAvatar): Promise<NamespaceRecord> {
    const avatarUrl = await this.keep('group', group.id, avatar);
    return (await this.deps.namespaces.update(group.id, { avatar_url: avatarUrl })) ?? { ...group, avatar_url: avatarUrl };
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
    await this.deps.blobs.keep(avatar.path, avatarKey(owner, String(id), avatar.fileName), { replaceDirectory: true });
    return avatarPath(owner, String(id), avatar.fileName);
  }
}

/** The path part of an avatar's URL (the serializers put the external URL before it). */
export function avatarPath(owner: AvatarOwner, id: string, fileName: string): string {
  return `/uploads/-/system/${owner}/avatar/${id}/${fileName}`;
}

function avatarKey(owner: AvatarOwner, id: string, fileName: string): string[] {
  return ['system', owner, 'avatar', id, fileName];
}
