import type { ReleaseRecord } from '../../../../storage/types-repository.ts';
import type { TagView } from '../../../services/repository/tags.ts';
import { serializeCommit, type CommitJson, type CommitUrlBase } from './commits.ts';

export interface ReleaseJson {
  tag_name: string;
  description: string;
}

export interface TagJson {
  name: string;
  message: string | null;
  target: string;
  commit: CommitJson;
  release: ReleaseJson | null;
  protected: boolean;
}

export function serializeRelease(release: ReleaseRecord): ReleaseJson {
  return { tag_name: release.tag_name, description: release.description };
}

export function serializeTag(view: TagView, base: CommitUrlBase): TagJson {
  return {
    name: view.tag.name,
    message: view.tag.message,
    target: view.tag.target,
    commit: serializeCommit(view.tag.commit, base),
    release: view.release ? serializeRelease(view.release) : null,
    protected: view.protected,
  };
}
