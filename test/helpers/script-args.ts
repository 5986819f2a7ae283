/**
 * Node's arguments to run a TypeScript script of the repository in a child process: its
 * compiled copy when the tests run compiled (scripts/build-tests.sh compiled it beside its
 * source), else the source through tsx.
 */
export function scriptArgs(tsFile: string): string[] {
  return import.meta.url.endsWith('.js') ? [tsFile.replace(/\.ts$/, '.js')] : ['--import', 'tsx', tsFile];
}
