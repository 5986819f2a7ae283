import { GantryError } from '../../../shared/errors.ts';
import { PUSH_MESSAGES } from '../../../storage/git/hooks.ts';
import { REF_MESSAGES } from '../../../storage/git/refs.ts';
import type { GitTag } from '../../../storage/git/types.ts';
import type { ReleaseRecord, ReleasesStore } from '../../../storage/types-repository.ts';
import type { UserRecord } from '../../../storage/types.ts';
import { matchesSearch, ZERO_SHA } from './branches.ts';
import type { CoordinatorEvents } from '../events.ts';
import { checkLengths, MAX_TEXT_SIZE, type FieldLimits } from '../field-limits.ts';
import type { Actor } from '../access/permissions.ts';
import type { ReadableRepository, RepositoryAccess } from './access.ts';
import { pageOfList, type Page, type Paged } from './pages.ts';
import { PROTECTED_TAG_MESSAGES, type ProtectedTagsService } from './protected-tags.ts';
import { tagNameProblem, type RefNameProblem } from './ref-name-rules.ts';

export interface TagView {
  tag: GitTag;
  release: ReleaseRecord | null;
  /** A protected-tag rule (a name or wildcard) matches it. */
  protected: boolean;
}

export interface TagResult {
  target: ReadableRepository;
  view: TagView;
}

export interface NewTag {
  name: string;
  ref: string;
  message?: string;
  releaseDescription?: string;
}

export interface TagsServiceDeps {
  access: Pick<RepositoryAccess, 'forRead' | 'forWrite'>;
  releases: Pick<ReleasesStore, 'listForProject' | 'find' | 'create' | 'update' | 'delete'>;
  tagRules: Pick<ProtectedTagsService, 'canCreate' | 'canDelete' | 'protectedTest'>;
  events: Pick<CoordinatorEvents, 'publishPush'>;
}

export interface TagListQuery {
  orderBy: 'name' | 'updated';
  sort: 'asc' | 'desc';
  search?: string;
}

/**
 * An annotated tag's message and the release notes given with a tag: GitLab bounds release
 * descriptions at 1,000,000 characters; git does not bound messages, we use the same figure.
 */
export const TAG_LIMITS = { message: MAX_TEXT_SIZE, release_description: MAX_TEXT_SIZE, description: MAX_TEXT_SIZE } as const satisfies FieldLimits;

/** A tag has one release at most. */
export function releaseExists(): GantryError {
  return new GantryError('GANTRY_E_ALREADY_EXISTS', 'Release already exists', { resource: 'Release' });
}

/** GitLab's words for a refused tag name: its validator's, then its push checks' (which the API's tag creation runs too). */
const TAG_NAME_MESSAGES: Record<RefNameProblem, string> = {
  invalid: REF_MESSAGES.invalidTagName,
  prohibited: PUSH_MESSAGES.prohibitedTagName,
  'sha-like': PUSH_MESSAGES.shaTagName,
};

/** `/projects/:id/repository/tags[...]` and their releases (notes stored with the tag). */
export class TagsService {
  constructor(private readonly deps: TagsServiceDeps) {}

  async list(projectRef: string, actor: Actor, query: TagListQuery, page: Page): Promise<{ target: ReadableRepository } & Paged<TagView>> {
    const target = await this.deps.access.forRead(projectRef, actor);
    return { target, ...pageOfList(await this.sorted(target, query), page) };
  }

  async get(projectRef: string, actor: Actor, name: string): Promise<TagResult> {
    const target = await this.deps.access.forRead(projectRef, actor);
    return { target, view: await this.find(target, name) };
  }

  private async sorted(target: ReadableRepository, query: TagListQuery): Promise<TagView[]> {
    if (!target.repository) return [];
    const tags = (await target.repository.tags()).filter((tag) => matchesSearch(tag.name, query.search));
    const key = (tag: GitTag): string => (query.orderBy === 'name' ? tag.name : tag.commit.committer.date);
    tags.sort((a, b) => {
      const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
      return query.sort === 'asc' ? order : -order;
    });
    const releases = new Map((await this.deps.releases.listForProject(target.project.id)).map((release) => [release.tag_name, release]));
    const isProtected = await this.deps.tagRules.protectedTest(target.project);
    return tags.map((tag) => ({ tag, release: releases.get(tag.name) ?? null, protected: isProtected(tag.name) }));
  }

  private async find(target: ReadableRepository, name: string): Promise<TagView> {
    const tag = target.repository ? await target.repository.tag(name) : null;
    if (!tag) throw new GantryError('GANTRY_E_TAG_NOT_FOUND');
    const isProtected = await this.deps.tagRules.protectedTest(target.project);
    return { tag, release: await this.deps.releases.find(target.project.id, name), protected: isProtected(name) };
  }

  /** Failures carry GitLab's explanation (the route answers them as spec 01 says). */
  async create(projectRef: string, actor: UserRecord, input: NewTag): Promise<TagResult> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    checkLengths(TAG_LIMITS, { message: input.message, release_description: input.releaseDescription });
    const nameProblem = tagNameProblem(input.name);
    if (nameProblem) throw new GantryError('GANTRY_E_REF_NAME_INVALID', TAG_NAME_MESSAGES[nameProblem]);
    if (!(await this.deps.tagRules.canCreate(target.project, actor, input.name))) throw new GantryError('GANTRY_E_TAG_PROTECTED', PROTECTED_TAG_MESSAGES.create, { reason: PROTECTED_TAG_MESSAGES.create });
    const repository = target.repository;
    const sha = repository ? await repository.resolveCommit(input.ref) : null;
    if (!repository || !sha) throw new GantryError('GANTRY_E_REF_NOT_FOUND', `Target ${input.ref} is invalid`);
    const tagger = { name: actor.name, email: actor.email };
    if (!(await repository.createTag(input.name, sha, input.message ?? null, tagger))) throw new GantryError('GANTRY_E_TAG_EXISTS', `Tag ${input.name} already exists`);
    if (input.releaseDescription) {
      await this.deps.releases.delete(target.project.id, input.name);
      await this.saveRelease(target, actor, input.name, input.releaseDescription);
    }
    await this.deps.events.publishPush({ project_id: target.project.id, ref: `refs/tags/${input.name}`, before: ZERO_SHA, after: sha, user_id: actor.id });
    return { target, view: await this.find(target, input.name) };
  }

  async delete(projectRef: string, actor: UserRecord, name: string): Promise<void> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    const { tag } = await this.find(target, name);
    if (!(await this.deps.tagRules.canDelete(target.project, actor, name))) throw new GantryError('GANTRY_E_TAG_PROTECTED', PROTECTED_TAG_MESSAGES.delete, { reason: PROTECTED_TAG_MESSAGES.delete });
    if (!target.repository || !(await target.repository.deleteTag(name))) throw new GantryError('GANTRY_E_TAG_NOT_FOUND');
    await this.deps.releases.delete(target.project.id, name);
    await this.deps.events.publishPush({ project_id: target.project.id, ref: `refs/tags/${name}`, before: tag.target, after: ZERO_SHA, user_id: actor.id });
  }

  async createRelease(projectRef: string, actor: UserRecord, name: string, description: string): Promise<ReleaseRecord> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    const tag = target.repository ? await target.repository.tag(name) : null;
    if (!tag) throw new GantryError('GANTRY_E_TAG_NOT_FOUND', 'Tag does not exist');
    if (await this.deps.releases.find(target.project.id, name)) throw releaseExists();
    return this.saveRelease(target, actor, name, description);
  }

  async updateRelease(projectRef: string, actor: UserRecord, name: string, description: string): Promise<ReleaseRecord> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    const tag = target.repository ? await target.repository.tag(name) : null;
    if (!tag) throw new GantryError('GANTRY_E_TAG_NOT_FOUND', 'Tag does not exist');
    const release = await this.deps.releases.find(target.project.id, name);
    if (!release) throw new GantryError('GANTRY_E_RELEASE_NOT_FOUND', 'Release does not exist');
    checkLengths(TAG_LIMITS, { description });
    return this.deps.releases.update(release.id, { description, updated_at: new Date().toISOString() });
  }

  private async saveRelease(target: ReadableRepository, actor: UserRecord, name: string, description: string): Promise<ReleaseRecord> {
    if (description.trim() === '') throw new GantryError('GANTRY_E_RELEASE_DESCRIPTION_BLANK', 'Description is invalid');
    checkLengths(TAG_LIMITS, { description });
    const now = new Date().toISOString();
    return this.deps.releases.create({
      project_id: target.project.id, tag_name: name, description, name: null, released_at: now, author_id: actor.id, created_at: now, updated_at: now,
    });
  }
}
