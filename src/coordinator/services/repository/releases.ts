import { accessDenied, atLeastOneOf, GantryError } from '../../../shared/errors.ts';
import type { GitTag } from '../../../storage/git/types.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { ReleaseChanges, ReleaseLinkRecord, ReleaseLinksStore, ReleaseRecord, ReleasesStore } from '../../../storage/types-repository.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';
import { checkLengths, MAX_TEXT_SIZE, type FieldLimits } from '../field-limits.ts';
import type { Actor, Permissions } from '../access/permissions.ts';
import type { ReadableRepository, RepositoryAccess } from './access.ts';
import { pageOfList, type Page, type Paged } from './pages.ts';
import { checkNewReleaseLinks, type ReleaseLinkInput, type ReleaseLinksService } from './release-links.ts';
import type { ReleaseMilestones, ReleaseMilestoneView } from './release-milestones.ts';
import { releaseExists, type TagsService } from './tags.ts';

export interface ReleasesServiceDeps {
  access: Pick<RepositoryAccess, 'forRead' | 'forWrite'>;
  permissions: Pick<Permissions, 'canDeleteRelease'>;
  releases: Pick<ReleasesStore, 'listForProject' | 'find' | 'create' | 'update' | 'delete' | 'milestoneIds'>;
  releaseLinks: Pick<ReleaseLinksStore, 'listForReleases'>;
  users: Pick<UsersStore, 'findByIds'>;
  tags: Pick<TagsService, 'create'>;
  links: Pick<ReleaseLinksService, 'add'>;
  milestones: Pick<ReleaseMilestones, 'resolve' | 'views'>;
  /** Told of each release created, edited or deleted (webhooks' release events). */
  observers?: readonly ReleaseObserver[];
}

export interface ReleaseObserver {
  releaseChanged(change: { action: 'create' | 'update' | 'delete'; project: ProjectRecord; view: ReleaseView }): Promise<void>;
}

/** GitLab's Release validation bounds the description (1,000,000); the name, unbounded there, takes 255 here. */
export const RELEASE_LIMITS = { name: 255, description: MAX_TEXT_SIZE } as const satisfies FieldLimits;

export interface ReleaseView {
  release: ReleaseRecord;
  /** null when the tag is gone (it was deleted outside the API). */
  tag: GitTag | null;
  author: UserRecord | null;
  links: ReleaseLinkRecord[];
  /** Those the caller may read, lowest id first. */
  milestones: ReleaseMilestoneView[];
}

export interface ReleaseInput {
  name?: string;
  description?: string;
  releasedAt?: string;
  /** Titles; on an update, they replace the release's milestones (none when empty). */
  milestones?: string[];
  /** `assets[links]` on creation. */
  links?: ReleaseLinkInput[];
}

export interface ReleaseResult {
  target: ReadableRepository;
  view: ReleaseView;
}

export interface ReleaseListQuery {
  orderBy: 'released_at' | 'created_at';
  sort: 'asc' | 'desc';
}

function releaseNotFound(): GantryError {
  return new GantryError('GANTRY_E_RELEASE_NOT_FOUND');
}

/** `/projects/:id/releases[/:tag_name]`: releases with a title, notes and a release date, one per tag. */
export class ReleasesService {
  constructor(private readonly deps: ReleasesServiceDeps) {}

  async list(projectRef: string, actor: Actor, query: ReleaseListQuery, page: Page): Promise<{ target: ReadableRepository } & Paged<ReleaseView>> {
    const target = await this.deps.access.forRead(projectRef, actor);
    const releases = await this.deps.releases.listForProject(target.project.id);
    const key = (release: ReleaseRecord): string => (query.orderBy === 'created_at' ? release.created_at : releasedAt(release));
    releases.sort((a, b) => {
      const order = key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id;
      return query.sort === 'asc' ? order : -order;
    });
    const { items, total } = pageOfList(releases, page);
    return { target, items: await this.views(target, actor, items), total };
  }

  async get(projectRef: string, actor: Actor, tagName: string): Promise<ReleaseResult> {
    const target = await this.deps.access.forRead(projectRef, actor);
    return { target, view: await this.find(target, actor, tagName) };
  }

  private async find(target: ReadableRepository, actor: Actor, tagName: string): Promise<ReleaseView> {
    const release = await this.deps.releases.find(target.project.id, tagName);
    if (!release) throw releaseNotFound();
    const [view] = await this.views(target, actor, [release]);
    return view!;
  }

  /** Creates the tag from `ref` first when it does not exist yet. */
  async create(projectRef: string, actor: UserRecord, tagName: string, ref: string | undefined, input: ReleaseInput): Promise<ReleaseResult> {
    let target: ReadableRepository = await this.deps.access.forWrite(projectRef, actor);
    checkLengths(RELEASE_LIMITS, { name: input.name, description: input.description });
    checkNewReleaseLinks(input.links ?? []);
    if (await this.deps.releases.find(target.project.id, tagName)) throw releaseExists();
    const milestoneIds = input.milestones ? await this.deps.milestones.resolve(target.project, input.milestones) : [];
    const tag = target.repository ? await target.repository.tag(tagName) : null;
    if (!tag) {
      if (!ref) throw new GantryError('GANTRY_E_RELEASE_REF_MISSING', 'Ref is not specified');
      target = (await this.deps.tags.create(projectRef, actor, { name: tagName, ref })).target;
    }
    const now = new Date().toISOString();
    const release = await this.deps.releases
      .create({
        project_id: target.project.id, tag_name: tagName, description: input.description ?? '', name: input.name ?? tagName,
        released_at: input.releasedAt ?? now, author_id: actor.id, created_at: now, updated_at: now,
      }, milestoneIds)
      .catch((error: unknown) => {
        // A concurrent request released the tag between the check above and this insert.
        throw isUniqueViolation(error) ? releaseExists() : error;
      });
    for (const link of input.links ?? []) await this.deps.links.add(release, link);
    const view = await this.find(target, actor, tagName);
    for (const observer of this.deps.observers ?? []) await observer.releaseChanged({ action: 'create', project: target.project, view });
    return { target, view };
  }

  async update(projectRef: string, actor: UserRecord, tagName: string, input: ReleaseInput): Promise<ReleaseResult> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    const release = await this.deps.releases.find(target.project.id, tagName);
    if (!release) throw releaseNotFound();
    // GitLab's Releases::UpdateService answers this after finding the release.
    if ([input.name, input.description, input.releasedAt, input.milestones].every((value) => value === undefined)) throw atLeastOneOf(['name', 'description', 'released_at', 'milestones'], 'params is empty');
    checkLengths(RELEASE_LIMITS, { name: input.name, description: input.description });
    const milestoneIds = input.milestones && (await this.deps.milestones.resolve(target.project, input.milestones));
    const changes: ReleaseChanges = { updated_at: new Date().toISOString() };
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (input.releasedAt !== undefined) changes.released_at = input.releasedAt;
    await this.deps.releases.update(release.id, changes, milestoneIds);
    const view = await this.find(target, actor, tagName);
    for (const observer of this.deps.observers ?? []) await observer.releaseChanged({ action: 'update', project: target.project, view });
    return { target, view };
  }

  /**
   * Maintainers delete a release; its tag and milestones stay. Answers the deleted release
   * without milestones, as GitLab's reads them after the delete.
   */
  async remove(projectRef: string, actor: UserRecord, tagName: string): Promise<ReleaseResult> {
    const target = await this.deps.access.forWrite(projectRef, actor);
    if (!(await this.deps.permissions.canDeleteRelease(target.project, actor))) throw accessDenied();
    const view = { ...(await this.find(target, actor, tagName)), milestones: [] };
    await this.deps.releases.delete(target.project.id, tagName);
    for (const observer of this.deps.observers ?? []) await observer.releaseChanged({ action: 'delete', project: target.project, view });
    return { target, view };
  }

  private async views(target: ReadableRepository, actor: Actor, releases: readonly ReleaseRecord[]): Promise<ReleaseView[]> {
    const tags = new Map((target.repository ? await target.repository.tags() : []).map((tag) => [tag.name, tag]));
    const authorIds = [...new Set(releases.flatMap((release) => (release.author_id === null ? [] : [release.author_id])))];
    const authors = new Map((await this.deps.users.findByIds(authorIds)).map((user) => [user.id, user]));
    const links = await this.deps.releaseLinks.listForReleases(releases.map((release) => release.id));
    const milestoneIds = await this.deps.releases.milestoneIds(releases.map((release) => release.id));
    const milestones = await this.deps.milestones.views(target.project, target.fullPath, actor, milestoneIds);
    return releases.map((release) => ({
      release,
      tag: tags.get(release.tag_name) ?? null,
      author: release.author_id === null ? null : (authors.get(release.author_id) ?? null),
      links: links.get(release.id) ?? [],
      milestones: milestones.get(release.id) ?? [],
    }));
  }
}

export function releasedAt(release: ReleaseRecord): string {
  return release.released_at ?? release.created_at;
}
