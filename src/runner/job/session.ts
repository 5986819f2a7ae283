/**
 * How the job engine talks to the coordinator: a narrow seam, so the HTTP implementation
 * (src/runner/http/job-session.ts) and tests plug in the same way.
 */
import type { Dependency } from '../../protocol/job-payload.ts';

/** Failure reasons the runner reports (reference §4.1 and GitLab's enum). */
export type FailureReason =
  | 'script_failure'
  | 'runner_system_failure'
  | 'job_execution_timeout'
  | 'job_canceled'
  | 'missing_dependency_failure'
  | 'unknown_failure';

export interface JobOutcome {
  state: 'success' | 'failed';
  failureReason?: FailureReason;
  exitCode?: number;
}

export interface ArtifactUpload {
  /** A file on this machine holding the archive; read once per attempt. */
  file: string;
  /** The multipart file name: `<name>.zip`, `<name>.gz` or `<name>`. */
  fileName: string;
  artifactType: string;
  artifactFormat: string;
  expireIn?: string | null;
}

export interface ArtifactUploadResult {
  ok: boolean;
  status: number;
  /** `201 Created`, or why it failed (`413 Request Entity Too Large`, a network error). */
  statusText: string;
}

export class DependencyDownloadError extends Error {
  constructor(
    message: string,
    /** 403 and 404: the dependency's artifacts cannot be had (expired, erased, forbidden). */
    readonly missing: boolean,
  ) {
    super(message);
    this.name = 'DependencyDownloadError';
  }
}

export interface JobSession {
  /** Masked, limited trace bytes, in order. Never blocks: the session sends them later. */
  appendTrace(bytes: Buffer): void;
  /** Aborted when the coordinator cancels the job (a 403 or Job-Status canceled/failed). */
  readonly canceled: AbortSignal;
  /**
   * Aborted when the coordinator asks for a graceful cancel (`Job-Status: canceling`): the
   * running stage stops, after_script runs, then the job reports as canceled.
   */
  readonly cancelRequested?: AbortSignal;
  uploadArtifact(upload: ArtifactUpload): Promise<ArtifactUploadResult>;
  /** Saves the dependency's artifacts archive (a zip) to `destination`. */
  downloadArtifacts(dependency: Dependency, destination: string): Promise<void>;
  /** Sends the rest of the trace and the final state. Resolves once the coordinator took it (or gave up on the job). */
  finish(outcome: JobOutcome): Promise<void>;
}
