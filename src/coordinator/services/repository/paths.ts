/**
 * Whether a path from a request can name something inside the repository: no `..` or `.`
 * segments. Others are answered as not found without asking git.
 */
export function isInsideRepository(filePath: string): boolean {
  return filePath.split('/').every((segment) => segment !== '..' && segment !== '.');
}
