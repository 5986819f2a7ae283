import type { FastifyRequest } from 'fastify';
import type { NamespaceRecord, ProjectRecord } from '../../../storage/types.ts';
import { AVATAR_SIZE_LIMIT, type AvatarsService, type CheckedAvatar } from '../../services/accounts/avatars.ts';

/** Route config of calls taking a multipart `avatar`: a file stops being written past GitLab's 200 KB. */
export const AVATAR_UPLOAD = { fileSizeLimit: AVATAR_SIZE_LIMIT } as const;

/** The request's multipart `avatar`, checked (400 with GitLab's message when too big or not an image); undefined without one. */
export async function checkedAvatar(request: FastifyRequest, avatars: Pick<AvatarsService, 'check'>): Promise<CheckedAvatar | undefined> {
  const file = request.uploads?.avatar;
  return file === undefined ? undefined : avatars.check(file);
}

/** A project view (or group details) with the avatar attached, when the request brought one. */
export async function withProjectAvatar<V extends { project: ProjectRecord }>(view: V, avatar: CheckedAvatar | undefined, avatars: Pick<AvatarsService, 'attachToProject'>): Promise<V> {
  return avatar ? { ...view, project: await avatars.attachToProject(view.project, avatar) } : view;
}

export async function withGroupAvatar<V extends { group: NamespaceRecord }>(view: V, avatar: CheckedAvatar | undefined, avatars: Pick<AvatarsService, 'attachToGroup'>): Promise<V> {
  return avatar ? { ...view, group: await avatars.attachToGroup(view.group, avatar) } : view;
}
