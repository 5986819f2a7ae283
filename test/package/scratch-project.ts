import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '../..');

export interface PackedPackage {
  /** The .tgz npm pack wrote. */
  tarball: string;
  /** Paths inside the package, as npm pack lists them. */
  files: string[];
}

/** Builds dist/ when stale and packs the package as `npm publish` would. */
export function packGantry(destination: string): PackedPackage {
  execFileSync('bash', ['scripts/build.sh'], { cwd: REPOSITORY_ROOT, stdio: 'ignore' });
  const output = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: REPOSITORY_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const [packed] = JSON.parse(output) as Array<{ filename: string; files: Array<{ path: string }> }>;
  if (!packed) throw new Error('npm pack printed nothing');
  return { tarball: path.join(destination, packed.filename), files: packed.files.map((file) => file.path) };
}

/**
 * A scratch Node project with the packed tarball installed as `node_modules/gantry`. Its
 * dependencies are linked from this checkout's node_modules (the test machine may be
 * offline), so what is tested is exactly the tarball's content.
 */
export function scratchProjectWith(tarball: string): string {
  const project = mkdtempSync(path.join(tmpdir(), 'gantry-consumer-'));
  const modules = path.join(project, 'node_modules');
  const installed = path.join(modules, 'gantry');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);
  const source = path.join(REPOSITORY_ROOT, 'node_modules');
  for (const entry of readdirSync(source)) {
    if (entry === '.bin' || entry.startsWith('.') || entry === 'gantry') continue;
    symlinkSync(path.join(source, entry), path.join(modules, entry));
  }
  return project;
}
