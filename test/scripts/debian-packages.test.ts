import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

const SCRIPT = path.resolve(import.meta.dirname, '../../scripts/debian-packages.sh');

/** Runs the script as a user who cannot install packages (`nobody` when the tests run as root). */
function asUnprivileged(args: string[]) {
  const command = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--', 'bash', SCRIPT, ...args] : ['bash', SCRIPT, ...args];
  return spawnSync(command[0] ?? 'bash', command.slice(1), { encoding: 'utf8' });
}

describe('scripts/debian-packages.sh (what npm test and npm start install)', () => {
  it('does nothing when every package is installed', () => {
    const result = asUnprivileged(['npm test', 'bash', 'coreutils']);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stderr, '');
  });

  it('stops at once with one line naming what is missing and how to get it when it cannot install', () => {
    const result = asUnprivileged(['npm test', 'bash', 'gantry-no-such-package']);
    assert.equal(result.status, 1);
    assert.equal(result.stdout, '');
    assert.equal(
      result.stderr,
      'npm test needs the Debian packages gantry-no-such-package: install them as root (apt-get install -y --no-install-recommends gantry-no-such-package), or run npm test as root\n',
    );
  });
});
