import { invalidParam } from '../../../shared/errors.ts';

/**
 * Whether a path from a request can name something inside the repository: no `..` or `.`
 * segments. Others are answered as not found without asking git.
 */
export function isInsideRepository(filePath: string): boolean {
  return filePath.split('/').every((segment) => segment !== '..' && segment !== '.');
}

/** 400 `{"error":"file_path should be a valid file path"}` for a path with a `..` segment, as GitLab's path validator answers. */
export function refuseTraversal(paramName: string, filePath: string | undefined): void {
  if (filePath !== undefined && filePath.split(/[/\\]/).includes('..')) throw invalidParam(paramName, 'should be a valid file path');
}
