/** Push/merge access levels a protected branch allows: 0 no one, 30 Developers + Maintainers, 40 Maintainers. */
export type ProtectionLevel = 0 | 30 | 40;

export interface ProtectedBranchRecord {
  id: number;
  project_id: number;
  /** Exact branch name or a wildcard pattern (`*` matches any characters). */
  name: string;
  push_access_level: ProtectionLevel;
  merge_access_level: ProtectionLevel;
  /** Pushers allowed by push_access_level may also rewrite the branch. */
  allow_force_push: boolean;
  created_at: string;
  updated_at: string;
}

export interface ProtectedBranchesStore {
  /** Ordered by name. */
  listForProject(projectId: number): Promise<ProtectedBranchRecord[]>;
  find(projectId: number, name: string): Promise<ProtectedBranchRecord | null>;
  /** null when the project already has a rule of that name. */
  create(rule: Omit<ProtectedBranchRecord, 'id'>): Promise<ProtectedBranchRecord | null>;
  update(id: number, levels: { push_access_level: ProtectionLevel; merge_access_level: ProtectionLevel; updated_at: string }): Promise<ProtectedBranchRecord>;
  delete(projectId: number, name: string): Promise<boolean>;
  deleteForProject(projectId: number): Promise<void>;
}

/** Who may create tags matching `name` (exact or wildcard); existing protected tags are never moved. */
export interface ProtectedTagRecord {
  id: number;
  project_id: number;
  name: string;
  create_access_level: ProtectionLevel;
  created_at: string;
}

export interface ProtectedTagsStore {
  /** Ordered by name. */
  listForProject(projectId: number): Promise<ProtectedTagRecord[]>;
  find(projectId: number, name: string): Promise<ProtectedTagRecord | null>;
  /** null when the project already protects that name. */
  create(rule: Omit<ProtectedTagRecord, 'id'>): Promise<ProtectedTagRecord | null>;
  delete(projectId: number, name: string): Promise<boolean>;
}

export interface ReleaseRecord {
  id: number;
  project_id: number;
  tag_name: string;
  description: string;
  /** The release's title; the tag name when null. */
  name: string | null;
  /** When it is (or will be) released; created_at when null (releases made with a tag). */
  released_at: string | null;
  author_id: number | null;
  created_at: string;
  updated_at: string;
}

export type ReleaseChanges = Partial<Pick<ReleaseRecord, 'description' | 'name' | 'released_at'>> & { updated_at: string };

export interface ReleasesStore {
  listForProject(projectId: number): Promise<ReleaseRecord[]>;
  find(projectId: number, tagName: string): Promise<ReleaseRecord | null>;
  /** With its milestones, in one transaction. */
  create(release: Omit<ReleaseRecord, 'id'>, milestoneIds?: readonly number[]): Promise<ReleaseRecord>;
  /** `milestoneIds`, when given, replace the release's milestones (in the same transaction). */
  update(id: number, changes: ReleaseChanges, milestoneIds?: readonly number[]): Promise<ReleaseRecord>;
  /** The milestone ids of each release that has any, lowest first. */
  milestoneIds(releaseIds: readonly number[]): Promise<Map<number, number[]>>;
  delete(projectId: number, tagName: string): Promise<void>;
  deleteForProject(projectId: number): Promise<void>;
}

export const RELEASE_LINK_TYPES = ['other', 'runbook', 'image', 'package'] as const;
export type ReleaseLinkType = (typeof RELEASE_LINK_TYPES)[number];

/** An asset link of a release: a URL, optionally served under a stable `filepath`. */
export interface ReleaseLinkRecord {
  id: number;
  release_id: number;
  name: string;
  url: string;
  /** `/path/in/release` for the stable download URL, or null. */
  filepath: string | null;
  link_type: ReleaseLinkType;
  created_at: string;
}

export type ReleaseLinkChanges = Partial<Pick<ReleaseLinkRecord, 'name' | 'url' | 'filepath' | 'link_type'>>;

export interface ReleaseLinksStore {
  /** Links of each release, oldest first. */
  listForReleases(releaseIds: readonly number[]): Promise<Map<number, ReleaseLinkRecord[]>>;
  find(releaseId: number, id: number): Promise<ReleaseLinkRecord | null>;
  create(link: Omit<ReleaseLinkRecord, 'id'>): Promise<ReleaseLinkRecord>;
  update(id: number, changes: ReleaseLinkChanges): Promise<ReleaseLinkRecord>;
  delete(id: number): Promise<void>;
}

export interface DeployKeyRecord {
  id: number;
  title: string;
  key: string;
  fingerprint: string;
  /** Unpadded base64 SHA-256, without `SHA256:` (GitLab's `fingerprint_sha256`). */
  fingerprint_sha256: string | null;
  created_at: string;
}

/** One project's use of a deploy key, as GitLab's `deploy_keys_projects` rows. */
export interface DeployKeyProjectLink {
  id: number;
  deploy_key_id: number;
  project_id: number;
  can_push: boolean;
  created_at: string;
}

/** A deploy key as one project uses it. */
export interface ProjectDeployKeyRecord extends DeployKeyRecord {
  project_id: number;
  can_push: boolean;
}

export interface DeployKeysStore {
  /** Every key, oldest first, one page. */
  listAll(page: { offset: number; limit: number }): Promise<DeployKeyRecord[]>;
  countAll(): Promise<number>;
  listForProject(projectId: number, page: { offset: number; limit: number }): Promise<ProjectDeployKeyRecord[]>;
  countForProject(projectId: number): Promise<number>;
  findById(id: number): Promise<DeployKeyRecord | null>;
  findByFingerprint(fingerprint: string): Promise<DeployKeyRecord | null>;
  findBySha256Fingerprint(fingerprint: string): Promise<DeployKeyRecord | null>;
  findForProject(projectId: number, keyId: number): Promise<ProjectDeployKeyRecord | null>;
  /** Projects that use the key. */
  projectIds(keyId: number): Promise<number[]>;
  /** The key's links to projects, oldest first. */
  projectLinks(keyId: number): Promise<DeployKeyProjectLink[]>;
  create(key: Omit<DeployKeyRecord, 'id'>): Promise<DeployKeyRecord>;
  updateTitle(id: number, title: string): Promise<void>;
  link(keyId: number, projectId: number, canPush: boolean, createdAt: string): Promise<void>;
  setCanPush(keyId: number, projectId: number, canPush: boolean): Promise<void>;
  unlink(keyId: number, projectId: number): Promise<void>;
  delete(id: number): Promise<void>;
  unlinkProject(projectId: number): Promise<void>;
  /** Deletes keys no project uses (after links went with a deleted project). */
  deleteUnused(): Promise<void>;
}
