import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Writes a GPG-signed commit (on `parent`'s tree, with a throw-away key made in a throw-away
 * home) straight into a bare repository's objects, and answers its id. No ref names it.
 */
export function writeSignedCommit(gitDir: string, parent: string): string {
  const home = mkdtempSync(path.join(tmpdir(), 'gantry-signed-'));
  const env = { ...process.env, GNUPGHOME: home };
  const git = (args: string[], input?: string): string => execFileSync('git', ['--git-dir', gitDir, ...args], { input, encoding: 'utf8', timeout: 60_000 }).trim();
  try {
    execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'Signer <signer@example.com>', 'ed25519', 'default', 'never'], { env, stdio: 'ignore', timeout: 60_000 });
    const tree = git(['show', '-s', '--format=%T', parent]);
    const person = `Signer <signer@example.com> ${Math.floor(Date.now() / 1000)} +0000`;
    const headers = `tree ${tree}\nparent ${parent}\nauthor ${person}\ncommitter ${person}\n`;
    const message = '\nsigned\n';
    const signature = execFileSync('gpg', ['--batch', '--armor', '--detach-sign', '--local-user', 'signer@example.com'], { env, input: headers + message, encoding: 'utf8', timeout: 60_000 });
    const gpgsig = `gpgsig ${signature.trimEnd().split('\n').join('\n ')}\n`;
    return git(['hash-object', '-t', 'commit', '-w', '--stdin'], headers + gpgsig + message);
  } finally {
    execFileSync('gpgconf', ['--kill', 'gpg-agent'], { env, stdio: 'ignore', timeout: 30_000 });
    rmSync(home, { recursive: true, force: true });
  }
}
