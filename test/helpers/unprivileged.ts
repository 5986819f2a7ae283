/**
 * Runs a little ES module as a user other than root (`nobody`, when the tests run as root, as
 * they do in CI): file modes such as a read-only directory bind every user but root, so what
 * they change can only be seen that way. `modulePath` (a .ts file under tsx, a .js file
 * compiled) is imported as `m` before `body` runs; paths it writes must be open to that user.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const REPOSITORY = path.resolve(import.meta.dirname, '../..');
const NOBODY = 65534;

export function runUnprivileged(modulePath: string, body: string): { status: number | null; stderr: string } {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(modulePath).href)});\n${body}`;
  const loader = modulePath.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const asRoot = process.getuid?.() === 0;
  const result = spawnSync(process.execPath, [...loader, '--input-type=module', '-e', script], {
    cwd: REPOSITORY,
    encoding: 'utf8',
    ...(asRoot ? { uid: NOBODY, gid: NOBODY, env: { PATH: process.env.PATH ?? '', HOME: '/tmp' } } : {}),
  });
  return { status: result.status, stderr: `${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
}
