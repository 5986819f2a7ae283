import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** How the keys are made: part of the cache file's name, so changing it makes new keys. */
const RECIPE = { algorithm: 'ed25519', uid: 'Walk {index} <walk{index}@example.com>', version: 1 };

/**
 * `count` armored GPG public keys (user ids `Walk N <walkN@example.com>`), made by gpg once per
 * machine and kept in the temporary directory, named by the recipe and the count: each test
 * coordinator is fresh, so processes may share the same keys, and the route walk's parts no
 * longer each wait for gpg to make six keys. A cache file that cannot be read is made again;
 * processes making it at the same time each write a whole file and rename it into place.
 */
export function cachedGpgKeys(count: number): string[] {
  const name = createHash('sha256').update(JSON.stringify({ ...RECIPE, count })).digest('hex').slice(0, 16);
  const file = path.join(tmpdir(), `gantry-test-gpg-keys-${name}.json`);
  try {
    const cached: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (Array.isArray(cached) && cached.length === count && cached.every((key) => typeof key === 'string' && key.includes('BEGIN PGP PUBLIC KEY BLOCK'))) return cached;
  } catch {
    // Absent or unreadable: made below.
  }
  const keys = makeGpgKeys(count);
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(keys));
  renameSync(partial, file);
  return keys;
}

/** Fresh armored GPG public keys, made by gpg in a throw-away home. */
function makeGpgKeys(count: number): string[] {
  const home = mkdtempSync(path.join(tmpdir(), 'gantry-walk-gpg-'));
  const env = { ...process.env, GNUPGHOME: home };
  try {
    return Array.from({ length: count }, (_, index) => {
      const uid = RECIPE.uid.replaceAll('{index}', String(index));
      const email = `walk${index}@example.com`;
      execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', uid, RECIPE.algorithm, 'default', 'never'], { env, stdio: 'ignore', timeout: 60_000 });
      return execFileSync('gpg', ['--armor', '--export', email], { env, encoding: 'utf8', timeout: 60_000 });
    });
  } finally {
    execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env, stdio: 'ignore', timeout: 30_000 });
    rmSync(home, { recursive: true, force: true });
  }
}
