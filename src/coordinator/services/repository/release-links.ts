import { GantryError, missingParam, validationFailed } from '../../../shared/errors.ts';
import { isUniqueViolation } from '../../../storage/errors.ts';
import type { ReleaseLinkChanges, ReleaseLinkRecord, ReleaseLinksStore, ReleaseLinkType, ReleaseRecord, ReleasesStore } from '../../../storage/types-repository.ts';
import type { UserRecord } from '../../../storage/types.ts';
import { lengthErrors, type FieldLimits } from '../field-limits.ts';
import type { Actor } from '../access/permissions.ts';
import type { ReadableRepository, RepositoryAccess } from './access.ts';
import { pageOfList, type Page, type Paged } from './pages.ts';

export interface ReleaseLinksServiceDeps {
  access: Pick<RepositoryAccess, 'forRead' | 'forWrite'>;
  releases: Pick<ReleasesStore, 'find'>;
  releaseLinks: Pick<ReleaseLinksStore, 'listForReleases' | 'find' | 'create' | 'update' | 'delete'>;
}

export interface ReleaseLinkInput {
  name?: string;
  url?: string;
  filepath?: string | null;
  linkType?: ReleaseLinkType;
}

const ALLOWED_SCHEMES = ['http:', 'https:', 'ftp:'];

/** GitLab's Releases::Link bounds filepath (128); name and URL, unbounded there, take 255 and 2,048 here. */
export const RELEASE_LINK_LIMITS = { name: 255, url: 2048, filepath: 128 } as const satisfies FieldLimits;
/** GitLab's rule: a leading slash, then path segments of word characters, dots and dashes, ending in a letter or digit. */
const FILEPATH = /^\/(?:[-.\w]+\/?)*[\da-zA-Z]+$/;

export interface LinkResult {
  target: ReadableRepository;
  link: ReleaseLinkRecord;
}

/**
 * Asset links of a release (`/releases/:tag_name/assets/links`): reading follows the
 * project's code access, changes need Developer. Names and URLs are unique per release.
 */
export class ReleaseLinksService {
  constructor(private readonly deps: ReleaseLinksServiceDeps) {}

  async list(projectRef: string, actor: Actor, tagName: string, page: Page): Promise<{ target: ReadableRepository } & Paged<ReleaseLinkRecord>> {
    const { target, release } = await this.release(await this.deps.access.forRead(projectRef, actor), tagName);
    return { target, ...pageOfList((await this.deps.releaseLinks.listForReleases([release.id])).get(release.id) ?? [], page) };
  }

  /**
   * Where `/<project>/-/releases/<tag>/downloads<filepath>` leads: the URL of the release's
   * link with that filepath; GANTRY_E_RELEASE_LINK_NOT_FOUND when there is none.
   */
  async downloadUrl(projectRef: string, actor: Actor, tagName: string, filepath: string): Promise<string> {
    const target = await this.deps.access.forRead(projectRef, actor);
    const release = await this.deps.releases.find(target.project.id, tagName);
    const links = release ? ((await this.deps.releaseLinks.listForReleases([release.id])).get(release.id) ?? []) : [];
    const link = links.find((candidate) => candidate.filepath === filepath);
    if (!link) throw new GantryError('GANTRY_E_RELEASE_LINK_NOT_FOUND');
    return link.url;
  }

  async get(projectRef: string, actor: Actor, tagName: string, linkId: number): Promise<LinkResult> {
    const { target, release } = await this.release(await this.deps.access.forRead(projectRef, actor), tagName);
    return { target, link: await this.link(release, linkId) };
  }

  async create(projectRef: string, actor: UserRecord, tagName: string, input: ReleaseLinkInput): Promise<LinkResult> {
    const { target, release } = await this.release(await this.deps.access.forWrite(projectRef, actor), tagName);
    return { target, link: await this.add(release, input) };
  }

  /** Adds a link to a release the caller already may write (also used by release creation). */
  async add(release: ReleaseRecord, input: ReleaseLinkInput): Promise<ReleaseLinkRecord> {
    const link = completeLink(input);
    await this.validate(release, link, null);
    return this.saving(release, link, null, () => this.deps.releaseLinks.create({ release_id: release.id, ...link, created_at: new Date().toISOString() }));
  }

  async update(projectRef: string, actor: UserRecord, tagName: string, linkId: number, input: ReleaseLinkInput): Promise<LinkResult> {
    const { target, release } = await this.release(await this.deps.access.forWrite(projectRef, actor), tagName);
    const current = await this.link(release, linkId);
    const changes: ReleaseLinkChanges = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.url !== undefined) changes.url = input.url;
    if (input.filepath !== undefined) changes.filepath = input.filepath;
    if (input.linkType !== undefined) changes.link_type = input.linkType;
    if (Object.keys(changes).length === 0) return { target, link: current };
    const merged = { ...current, ...changes };
    await this.validate(release, merged, current.id);
    return { target, link: await this.saving(release, merged, current.id, () => this.deps.releaseLinks.update(current.id, changes)) };
  }

  /** Answers the deleted link, as GitLab does. */
  async remove(projectRef: string, actor: UserRecord, tagName: string, linkId: number): Promise<LinkResult> {
    const { target, release } = await this.release(await this.deps.access.forWrite(projectRef, actor), tagName);
    const link = await this.link(release, linkId);
    await this.deps.releaseLinks.delete(link.id);
    return { target, link };
  }

  private async release(target: ReadableRepository, tagName: string): Promise<{ target: ReadableRepository; release: ReleaseRecord }> {
    const release = await this.deps.releases.find(target.project.id, tagName);
    if (!release) throw new GantryError('GANTRY_E_RELEASE_NOT_FOUND');
    return { target, release };
  }

  private async link(release: ReleaseRecord, linkId: number): Promise<ReleaseLinkRecord> {
    const link = await this.deps.releaseLinks.find(release.id, linkId);
    if (!link) throw new GantryError('GANTRY_E_RELEASE_LINK_NOT_FOUND');
    return link;
  }

  private async validate(release: ReleaseRecord, link: LinkFields, selfId: number | null): Promise<void> {
    const others = ((await this.deps.releaseLinks.listForReleases([release.id])).get(release.id) ?? []).filter((other) => other.id !== selfId);
    refuseInvalidLink(link, others);
  }

  /** A concurrent writer can still win a unique index: checking again names the field, as a pre-checked clash does. */
  private async saving(release: ReleaseRecord, link: LinkFields, selfId: number | null, write: () => Promise<ReleaseLinkRecord>): Promise<ReleaseLinkRecord> {
    try {
      return await write();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await this.validate(release, link, selfId);
      throw validationFailed({ name: ['has already been taken'] });
    }
  }
}

type LinkFields = Pick<ReleaseLinkRecord, 'name' | 'url' | 'filepath' | 'link_type'>;

function completeLink(input: ReleaseLinkInput): LinkFields {
  if (input.name === undefined || input.name === '') throw missingParam('name');
  if (input.url === undefined || input.url === '') throw missingParam('url');
  return { name: input.name, url: input.url, filepath: input.filepath ?? null, link_type: input.linkType ?? 'other' };
}

/** 400 `{"message":{field:[...]}}` for a bad URL or filepath, or a name, URL or filepath another link has. */
function refuseInvalidLink(link: LinkFields, others: readonly LinkFields[]): void {
  const errors = lengthErrors(RELEASE_LINK_LIMITS, link);
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
  if (link.name.trim() === '') errors.name = ["can't be blank"];
  if (!isAllowedUrl(link.url)) errors.url = ['is blocked: Only allowed schemes are http, https, ftp'];
  if (link.filepath !== null && !FILEPATH.test(link.filepath)) errors.filepath = ['is in an invalid format'];
  if (others.some((other) => other.name === link.name)) errors.name = ['has already been taken'];
  if (others.some((other) => other.url === link.url)) errors.url = ['has already been taken'];
  if (link.filepath !== null && others.some((other) => other.filepath === link.filepath)) errors.filepath = ['has already been taken'];
  if (Object.keys(errors).length > 0) throw validationFailed(errors);
}

/** Checks the links of a new release before anything is written. */
export function checkNewReleaseLinks(inputs: readonly ReleaseLinkInput[]): void {
  const accepted: LinkFields[] = [];
  for (const input of inputs) {
    const link = completeLink(input);
    refuseInvalidLink(link, accepted);
    accepted.push(link);
  }
}

function isAllowedUrl(value: string): boolean {
  try {
    return ALLOWED_SCHEMES.includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
