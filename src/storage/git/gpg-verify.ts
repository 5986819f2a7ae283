import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from '#deps/execa';
import { GantryError } from '../../shared/errors.ts';

/** gpg gets this long per run; a signature that takes longer is reported unverifiable. */
const GPG_TIMEOUT_MS = 10_000;
/** gpg's status output is a few lines; more is refused. */
const GPG_OUTPUT_MAX_BYTES = 256 * 1024;
/** Verifications at once (each is a few gpg processes), and how many may wait for one. */
const CONCURRENT_VERIFICATIONS = 2;
const WAITING_VERIFICATIONS = 32;
/** The limit is the coordinator's, shared by every requester (not the work queue's per-requester one). */
const VERIFICATIONS_FULL = `Too many signature verifications are waiting (${WAITING_VERIFICATIONS}, for all requesters together); retry later.`;

/** Who made a signature, as the signature itself says (no key needed). */
export interface SignatureIssuer {
  /** The 16 hex digits of the signing key's id. */
  keyId: string;
  /** The signing key's full fingerprint, when the signature carries it (gpg 2.2 and later do). */
  fingerprint: string | null;
}

/** What gpg made of a signature checked against one public key. */
export interface GpgCheck {
  outcome: 'good' | 'bad' | 'expired_key' | 'revoked_key' | 'unverifiable';
  /** The fingerprint of the (sub)key that made the signature and of its primary key (VALIDSIG). */
  signingFingerprint: string | null;
  primaryFingerprint: string | null;
  /** The key's user ids (`Name <email>`), as gpg lists them. */
  userIds: Array<{ name: string; email: string }>;
}

/**
 * Runs gpg in a sealed home made for one verification and removed after it: no user's or
 * system's configuration, no agent, no network, only the keys given here, a timeout and a
 * bounded output. At most CONCURRENT_VERIFICATIONS run at once; past WAITING_VERIFICATIONS
 * waiting, a verification is refused (GANTRY_E_GIT_TOO_MANY_WAITING) rather than queued.
 */
export class GpgVerifier {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  /** The issuer of an armored signature, or null when gpg cannot read one from it. */
  async issuer(signature: Buffer): Promise<SignatureIssuer | null> {
    return this.inSealedHome(async (home) => {
      const files = await this.writeInputs(home, signature, Buffer.alloc(0));
      const status = await this.gpg(home, ['--verify', files.signature, files.data]);
      const fields = statusLines(status).find((line) => line[0] === 'ERRSIG' || line[0] === 'VALIDSIG' || line[0] === 'GOODSIG' || line[0] === 'BADSIG');
      if (!fields) return null;
      if (fields[0] !== 'ERRSIG') return { keyId: (fields[1] ?? '').slice(-16), fingerprint: null };
      const fingerprint = fields[7] && /^[0-9A-F]{40,64}$/.test(fields[7]) ? fields[7] : null;
      return /^[0-9A-F]{16}$/.test(fields[1] ?? '') ? { keyId: fields[1]!, fingerprint } : null;
    });
  }

  /** Checks `signature` over `data` against one armored public key. */
  async check(signature: Buffer, data: Buffer, armoredKey: string): Promise<GpgCheck> {
    return this.inSealedHome(async (home) => {
      const files = await this.writeInputs(home, signature, data);
      const keyFile = path.join(home, 'key.asc');
      await writeFile(keyFile, armoredKey);
      await this.gpg(home, ['--import', keyFile]);
      const lines = statusLines(await this.gpg(home, ['--verify', files.signature, files.data]));
      const valid = lines.find((line) => line[0] === 'VALIDSIG');
      const userIds = parseUserIds(await this.gpg(home, ['--with-colons', '--list-keys'], false));
      return {
        outcome: outcomeOf(lines.map((line) => line[0] ?? '')),
        signingFingerprint: valid?.[1] ?? null,
        primaryFingerprint: valid?.[10] ?? null,
        userIds,
      };
    });
  }

  private async inSealedHome<T>(work: (home: string) => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      const home = await mkdtemp(path.join(tmpdir(), 'gantry-gpg-'));
      try {
        return await work(home);
      } finally {
        await rm(home, { recursive: true, force: true });
      }
    } finally {
      this.release();
    }
  }

  private async acquire(): Promise<void> {
    if (this.running < CONCURRENT_VERIFICATIONS) {
      this.running += 1;
      return;
    }
    if (this.waiting.length >= WAITING_VERIFICATIONS) throw new GantryError('GANTRY_E_GIT_TOO_MANY_WAITING', VERIFICATIONS_FULL);
    // The slot passes straight from release() to the waiter: `running` stays counted.
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }

  private async writeInputs(home: string, signature: Buffer, data: Buffer): Promise<{ signature: string; data: string }> {
    const files = { signature: path.join(home, 'signature.asc'), data: path.join(home, 'signed-data') };
    await writeFile(files.signature, signature);
    await writeFile(files.data, data);
    return files;
  }

  /** stdout of one gpg run (status lines go there); exit codes are gpg's verdicts, not failures. */
  private async gpg(home: string, args: readonly string[], status = true): Promise<string> {
    const base = ['--homedir', home, '--no-options', '--batch', '--no-tty', '--no-autostart', '--trust-model', 'always'];
    const result = await execa('gpg', [...base, ...(status ? ['--status-fd', '1'] : []), ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', GNUPGHOME: home },
      extendEnv: false,
      stdin: 'ignore',
      reject: false,
      timeout: GPG_TIMEOUT_MS,
      maxBuffer: GPG_OUTPUT_MAX_BYTES,
      encoding: 'utf8',
    });
    if (result.timedOut) throw new Error(`gpg took longer than ${GPG_TIMEOUT_MS} ms`);
    return String(result.stdout);
  }
}

function statusLines(output: string): string[][] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('[GNUPG:] '))
    .map((line) => line.slice('[GNUPG:] '.length).split(' '));
}

function outcomeOf(keywords: readonly string[]): GpgCheck['outcome'] {
  if (keywords.includes('BADSIG')) return 'bad';
  if (keywords.includes('REVKEYSIG')) return 'revoked_key';
  if (keywords.includes('EXPKEYSIG')) return 'expired_key';
  if (keywords.includes('GOODSIG') && keywords.includes('VALIDSIG')) return 'good';
  return 'unverifiable';
}

/** `uid` records of `--with-colons --list-keys`: field 10 is `Name (comment) <email>`, with `\x3a`-style escapes. */
function parseUserIds(listing: string): Array<{ name: string; email: string }> {
  return listing
    .split('\n')
    .filter((line) => line.startsWith('uid:'))
    .map((line) => {
      const text = (line.split(':')[9] ?? '').replace(/\\x([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      const email = /<([^>]*)>\s*$/.exec(text)?.[1] ?? '';
      const name = text.replace(/\s*<[^>]*>\s*$/, '').replace(/\s*\([^)]*\)$/, '');
      return { name, email };
    });
}
