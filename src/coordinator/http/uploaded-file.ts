/**
 * A file of a multipart request, already on disk: it was written to `path` as it arrived
 * (never held in memory), under the upload size limit. The file is removed when the
 * response is done; a handler that keeps it moves it elsewhere first (same file system: a
 * rename).
 */
export interface UploadedFile {
  readonly kind: 'uploaded-file';
  readonly filename: string;
  readonly mimetype: string;
  readonly path: string;
  readonly size: number;
  /** Past the route's `fileSizeLimit`: only its first bytes were written. */
  readonly overLimit?: true;
}

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'uploaded-file';
}
