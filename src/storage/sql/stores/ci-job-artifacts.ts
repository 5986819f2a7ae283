import { sql } from '#deps/kysely';
import { dialectOf, inTransaction, type Db } from '../database.ts';
import { preparedQuery } from '../prepared.ts';
import type { SecretBox } from '../../secret-box.ts';
import type { Page } from '../../types-ci.ts';
import type {
  ArtifactEntryRecord, ArtifactFileFormat, ArtifactFileType, DotenvVariableRecord, JobArtifactRecord, JobArtifactsStore, NewJobArtifact,
} from '../../types-ci-jobs.ts';

/** Entry rows per INSERT (10 columns each). */
const ENTRY_BATCH = 500;

const ENTRY_COLUMNS = ['path', 'kind', 'size', 'compressed_size', 'crc32', 'mode', 'modified_at', 'header_offset', 'compression'] as const;

type EntryRow = { path: string; kind: string; size: number; compressed_size: number; crc32: number; mode: number; modified_at: string | null; header_offset: number | null; compression: number | null };

function toArtifact(row: Omit<JobArtifactRecord, 'file_format'> & { file_format: string }): JobArtifactRecord {
  return { ...row, file_format: row.file_format as ArtifactFileFormat, size: Number(row.size) };
}

function toEntry(row: EntryRow): ArtifactEntryRecord {
  return {
    ...row,
    kind: row.kind as ArtifactEntryRecord['kind'],
    size: Number(row.size),
    compressed_size: Number(row.compressed_size),
    crc32: Number(row.crc32),
    header_offset: row.header_offset === null ? null : Number(row.header_offset),
  };
}

async function insertEntries(db: Db, artifactId: number, entries: readonly ArtifactEntryRecord[]): Promise<void> {
  for (let start = 0; start < entries.length; start += ENTRY_BATCH) {
    const batch = entries.slice(start, start + ENTRY_BATCH).map((entry) => ({ artifact_id: artifactId, ...entry }));
    await db.insertInto('ci_artifact_entries').values(batch).execute();
  }
}

export class SqlJobArtifactsStore implements JobArtifactsStore {
  // Each artifact download and upload reads the job's archive record.
  private readonly byJobAndType;

  constructor(
    private readonly db: Db,
    private readonly secrets: SecretBox,
  ) {
    this.byJobAndType = preparedQuery(db, (jobId: number, fileType: ArtifactFileType) =>
      db.selectFrom('ci_job_artifacts').selectAll().where('job_id', '=', jobId).where('file_type', '=', fileType).compile());
  }

  async save(
    artifact: NewJobArtifact,
    entries: readonly ArtifactEntryRecord[] = [],
    variables: ReadonlyArray<{ key: string; value: string }> = [],
  ): Promise<{ artifact: JobArtifactRecord; replacedPath: string | null }> {
    return inTransaction(this.db, async (trx) => {
      const replaced = await trx
        .deleteFrom('ci_job_artifacts')
        .where('job_id', '=', artifact.job_id)
        .where('file_type', '=', artifact.file_type)
        .returning('path')
        .executeTakeFirst();
      const row = await trx.insertInto('ci_job_artifacts').values(artifact).returningAll().executeTakeFirstOrThrow();
      await insertEntries(trx, row.id, entries);
      if (variables.length > 0) {
        const rows = variables.map((variable, position) => ({ artifact_id: row.id, job_id: row.job_id, position, key: variable.key, value: this.secrets.seal(variable.value) }));
        await trx.insertInto('ci_job_variables').values(rows).execute();
      }
      const replacedPath = replaced && replaced.path !== row.path ? replaced.path : null;
      return { artifact: toArtifact(row), replacedPath };
    });
  }

  async find(jobId: number, fileType: ArtifactFileType): Promise<JobArtifactRecord | undefined> {
    const [row] = await this.byJobAndType(jobId, fileType);
    return row && toArtifact(row);
  }

  async listForJobs(jobIds: readonly number[]): Promise<JobArtifactRecord[]> {
    if (jobIds.length === 0) return [];
    const rows = await this.db.selectFrom('ci_job_artifacts').selectAll().where('job_id', 'in', [...new Set(jobIds)]).orderBy('job_id').orderBy('id').execute();
    return rows.map(toArtifact);
  }

  async dotenvVariablesForJobs(jobIds: readonly number[]): Promise<DotenvVariableRecord[]> {
    if (jobIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('ci_job_variables')
      .select(['job_id', 'key', 'value'])
      .where('job_id', 'in', [...new Set(jobIds)])
      .orderBy('job_id')
      .orderBy('position')
      .execute();
    return rows.map((row) => ({ ...row, value: this.secrets.open(row.value) }));
  }

  async findEntry(artifactId: number, path: string): Promise<ArtifactEntryRecord | undefined> {
    const row = await this.db
      .selectFrom('ci_artifact_entries')
      .select(ENTRY_COLUMNS)
      .where('artifact_id', '=', artifactId)
      .where('path', '=', path)
      .executeTakeFirst();
    return row && toEntry(row);
  }

  async replaceEntries(artifactId: number, entries: readonly ArtifactEntryRecord[]): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await trx.deleteFrom('ci_artifact_entries').where('artifact_id', '=', artifactId).execute();
      await insertEntries(trx, artifactId, entries);
    });
  }

  async listEntries(artifactId: number, prefix: string, page: Page, from?: string): Promise<ArtifactEntryRecord[]> {
    let query = this.db
      .selectFrom('ci_artifact_entries')
      .select(ENTRY_COLUMNS)
      .where('artifact_id', '=', artifactId);
    // Case-sensitive prefix and byte order on both backends (LIKE ignores case on SQLite; PostgreSQL sorts by locale).
    if (prefix !== '') query = query.where(sql<boolean>`substr(path, 1, ${[...prefix].length}) = ${prefix}`);
    const byPath = dialectOf(this.db) === 'postgres' ? sql`path collate "C"` : sql`path`;
    if (from !== undefined) query = query.where(sql<boolean>`${byPath} >= ${from}`);
    const rows = await query.orderBy(byPath).offset(page.offset).limit(page.limit).execute();
    return rows.map(toEntry);
  }

  async deleteForJob(jobId: number, fileTypes?: readonly ArtifactFileType[]): Promise<string[]> {
    if (fileTypes !== undefined && fileTypes.length === 0) return [];
    let query = this.db.deleteFrom('ci_job_artifacts').where('job_id', '=', jobId);
    if (fileTypes !== undefined) query = query.where('file_type', 'in', [...fileTypes]);
    const rows = await query.returning('path').execute();
    return rows.map((row) => row.path);
  }

  async listExpired(now: string, limit: number): Promise<JobArtifactRecord[]> {
    const rows = await this.db
      .selectFrom('ci_job_artifacts')
      .selectAll()
      .where('expire_at', 'is not', null)
      .where('expire_at', '<=', now)
      .orderBy('expire_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toArtifact);
  }

  async clearExpiry(jobId: number): Promise<void> {
    await this.db.updateTable('ci_job_artifacts').set({ expire_at: null }).where('job_id', '=', jobId).execute();
  }
}
