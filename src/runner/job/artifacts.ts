/**
 * download_artifacts (dependencies, extracted safely into the project) and
 * upload_artifacts_on_success/on_failure (paths, exclude, untracked, when; zip, gzip or raw;
 * reports; expire_in), as reference §6 and §8.3 describe.
 */
import path from 'node:path';
import type { Artifact, Dependency } from '../../protocol/job-payload.ts';
import { archive as loadArchiveCode } from './archive/lazy.ts';
import type { JobContext } from './context.ts';
import { zipCompressionLevel } from './compression.ts';
import { DependencyDownloadError, type FailureReason } from './session.ts';
import { expandValue } from './variables.ts';

export function dependenciesWithArtifacts(context: JobContext): Dependency[] {
  return context.payload.dependencies.filter((dependency) => (dependency.artifacts_file?.filename ?? '') !== '');
}

export interface StageFailure {
  message: string;
  reason: FailureReason;
}

/** A dependency's archive being fetched into the job's work directory. */
interface Prefetched {
  dependency: Dependency;
  file: string;
  /** The download's error, or null once the file is there; never rejects. */
  done: Promise<unknown>;
}

/**
 * The dependencies' archives, downloaded one after another from now on (while get_sources
 * runs: the stage then finds them on disk) into the job's work directory. A failed download
 * ends the chain, as it ends the stage; `abandon` ends it when the stage will not run.
 */
export class ArtifactPrefetch {
  private readonly downloads: Prefetched[] = [];
  private abandoned = false;

  constructor(private readonly context: JobContext) {
    let previous: Promise<unknown> = Promise.resolve(null);
    for (const dependency of dependenciesWithArtifacts(context)) {
      const file = path.join(context.workDir, `dependency-${dependency.id}.zip`);
      const done = previous.then((failure) => {
        if (failure !== null) return failure;
        if (this.abandoned || context.signal.aborted) return new Error('not downloaded: the job stopped before download_artifacts');
        return context.session.downloadArtifacts(dependency, file).then(() => null, (error: unknown) => error);
      });
      this.downloads.push({ dependency, file, done });
      previous = done;
    }
  }

  /** How many dependencies have artifacts to download. */
  get size(): number {
    return this.downloads.length;
  }

  /** The job ends before download_artifacts: no further download starts. */
  abandon(): void {
    this.abandoned = true;
  }

  /**
   * The download_artifacts stage: each archive awaited in order and extracted into the project;
   * a download that failed is tried again until `attempts` (ARTIFACT_DOWNLOAD_ATTEMPTS) is spent.
   */
  async extract(attempts = 1): Promise<StageFailure | null> {
    const archiveCode = await loadArchiveCode();
    const { trace, session, signal } = this.context;
    for (const { dependency, file, done } of this.downloads) {
      trace.notice(`Downloading artifacts for ${dependency.name} (${dependency.id})...`);
      let error = await done;
      for (let attempt = 2; error !== null && attempt <= attempts && !signal.aborted; attempt++) {
        const message = error instanceof Error ? error.message : String(error);
        trace.warning(`Downloading artifacts from coordinator... ${message}  id=${dependency.id}: attempt ${attempt} of ${attempts} (ARTIFACT_DOWNLOAD_ATTEMPTS)`);
        error = await session.downloadArtifacts(dependency, file).then(() => null, (failure: unknown) => failure);
      }
      if (error === null) {
        trace.write(`Downloading artifacts from coordinator... ok\x1b[0;m  id\x1b[0;m=${dependency.id} responseStatus\x1b[0;m=200 OK\n`);
      } else {
        const message = error instanceof Error ? error.message : String(error);
        trace.error(`Downloading artifacts from coordinator... ${message}  id=${dependency.id}`);
        const missing = error instanceof DependencyDownloadError && error.missing;
        return { message: `downloading artifacts of ${dependency.name} (${dependency.id}): ${message}`, reason: missing ? 'missing_dependency_failure' : 'runner_system_failure' };
      }
      try {
        await this.context.environment.copyIn(await archiveCode.zipAsTar(file), this.context.environment.info.projectDir);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        trace.error(`Extracting artifacts of ${dependency.name} (${dependency.id}): ${message}`);
        return { message, reason: 'script_failure' };
      }
    }
    return null;
  }
}

export function artifactsToUpload(context: JobContext, succeeded: boolean): Artifact[] {
  return context.payload.artifacts.filter((artifact) => {
    const when = artifact.when ?? 'on_success';
    return when === 'always' || (when === 'on_success' ? succeeded : !succeeded);
  });
}

const EXTENSIONS: Record<string, string> = { zip: '.zip', gzip: '.gz', raw: '' };

/** Uploads every artifact whose `when` fits; returns the first failure (the job then fails). */
export async function uploadArtifacts(context: JobContext, succeeded: boolean): Promise<string | null> {
  const archiveCode = await loadArchiveCode();
  const { trace } = context;
  let failure: string | null = null;
  for (const [index, artifact] of artifactsToUpload(context, succeeded).entries()) {
    trace.notice('Uploading artifacts...');
    const format = artifact.artifact_format || 'zip';
    const type = artifact.artifact_type || 'archive';
    const { entries, select, unarchivable } = await archiveCode.collect(context, { paths: artifact.paths, exclude: artifact.exclude, untracked: artifact.untracked }, `artifact-${index}`);
    for (const { warning, text } of archiveCode.matchReport(select, context.environment.info.projectDir)) {
      if (warning) trace.warning(text);
      else trace.write(`${text}\x1b[0;m\n`);
    }
    for (const name of unarchivable) trace.warning(archiveCode.unarchivableLine(name));
    if (!entries.some((entry) => entry.type !== 'directory')) {
      trace.error('No files to upload');
      continue;
    }
    const archive = path.join(context.workDir, `artifact-${index}${EXTENSIONS[format] ?? ''}`);
    try {
      if (format === 'gzip') await archiveCode.writeGzipMembers(entries, archive);
      else if (format === 'raw') await archiveCode.writeRaw(entries, archive);
      else await archiveCode.writeZip(entries, archive, zipCompressionLevel(context, 'ARTIFACT_COMPRESSION_LEVEL'));
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      trace.error(`Uploading artifacts as "${type}" to coordinator... ${message}`);
      failure ??= message;
      continue;
    }
    const name = archiveName(context, artifact);
    const fileName = format === 'raw' ? name : `${name}${EXTENSIONS[format] ?? ''}`;
    const result = await context.session.uploadArtifact({ file: archive, fileName, artifactType: type, artifactFormat: format, expireIn: artifact.expire_in });
    const details = `id\x1b[0;m=${context.payload.id} responseStatus\x1b[0;m=${result.statusText}`;
    if (result.ok) {
      trace.write(`Uploading artifacts as "${type}" to coordinator... ok\x1b[0;m  ${details}\n`);
    } else {
      trace.warning(`Uploading artifacts as "${type}" to coordinator... failed  ${details}`);
      failure ??= `uploading artifacts as "${type}": ${result.statusText}`;
    }
  }
  return failure;
}

/**
 * The archive's name as gitlab-runner's uploader makes it: none given is `artifacts`; a given one
 * has the job's variables expanded (`name: "$CI_JOB_NAME"`), keeps its last path part, and is
 * `default` when that is nothing.
 */
function archiveName(context: JobContext, artifact: Artifact): string {
  if (!artifact.name) return 'artifacts';
  const base = path.posix.basename(expandValue(artifact.name, context.variables));
  return base === '' || base === '.' ? 'default' : base;
}
