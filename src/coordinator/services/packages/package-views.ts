import type { PipelineRecord, PipelinesStore } from '../../../storage/types-ci.ts';
import type { PackageFileRecord, PackageRecord } from '../../../storage/types-packages.ts';
import type { ProjectRecord, UserRecord, UsersStore } from '../../../storage/types.ts';

/** A pipeline that uploaded to a package, with the user who ran it (GitLab's Package::Pipeline). */
export interface PackagePipeline {
  pipeline: PipelineRecord;
  user: UserRecord | null;
}

export interface PackageView {
  project: ProjectRecord;
  /** The project's full path (web paths and pipeline URLs). */
  projectFullPath: string;
  package: PackageRecord;
  /** Newest first; empty when no file came from a CI job. */
  pipelines: PackagePipeline[];
  /** Whether the caller may delete it (GitLab shows `_links.delete_api_path` then). */
  deletable: boolean;
}

export interface PackageFileView {
  file: PackageFileRecord;
  pipelines: PackagePipeline[];
}

/** Loads the pipelines (and their users) that packages and package files name, once each. */
export class PackagePipelines {
  private readonly cache = new Map<number, Promise<PackagePipeline | undefined>>();

  constructor(private readonly deps: { pipelines: Pick<PipelinesStore, 'findById'>; users: Pick<UsersStore, 'findById'> }) {}

  async load(ids: readonly number[]): Promise<PackagePipeline[]> {
    const found = await Promise.all(ids.map((id) => this.one(id)));
    return found.filter((entry): entry is PackagePipeline => entry !== undefined);
  }

  private one(id: number): Promise<PackagePipeline | undefined> {
    let entry = this.cache.get(id);
    if (!entry) {
      entry = (async () => {
        const pipeline = await this.deps.pipelines.findById(id);
        if (!pipeline) return undefined;
        const user = pipeline.user_id === null ? null : ((await this.deps.users.findById(pipeline.user_id)) ?? null);
        return { pipeline, user };
      })();
      this.cache.set(id, entry);
    }
    return entry;
  }
}
