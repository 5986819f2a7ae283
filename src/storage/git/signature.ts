import type { ObjectReader } from './reader.ts';
import type { CommitSignature } from './types.ts';

/** Commits larger than this are not read for a signature (a signed commit is a few KiB). */
export const SIGNED_COMMIT_MAX_BYTES = 1024 * 1024;

const SIGNATURE_HEADERS = new Set(['gpgsig', 'gpgsig-sha256']);

/**
 * The signature of commit `revision`: 'missing' when no such commit, 'unsigned' when it has no
 * signature header (or is over SIGNED_COMMIT_MAX_BYTES: nothing that large is read).
 */
export async function readCommitSignature(reader: ObjectReader, revision: string): Promise<CommitSignature | 'missing' | 'unsigned'> {
  const id = await reader.resolveCommit(revision);
  if (id === null) return 'missing';
  const info = await reader.info(id);
  if (!info || info.size > SIGNED_COMMIT_MAX_BYTES) return 'unsigned';
  const object = await reader.contents(id);
  if (!object || object.type !== 'commit') return 'missing';
  return splitSignature(object.data);
}

/** Splits a raw commit into its signature header (with continuation lines) and the rest. */
export function splitSignature(data: Buffer): CommitSignature | 'unsigned' {
  const headerEnd = data.indexOf('\n\n');
  // latin1 maps each byte to one character and back: the signed bytes stay exactly as stored.
  const headerText = (headerEnd < 0 ? data : data.subarray(0, headerEnd)).toString('latin1');
  const lines = headerText.split('\n');
  const kept: string[] = [];
  const signature: string[] = [];
  let inSignature = false;
  let signatureSeen = false;
  let committerEmail = '';
  for (const line of lines) {
    if (inSignature && line.startsWith(' ')) {
      signature.push(line.slice(1));
      continue;
    }
    inSignature = false;
    const space = line.indexOf(' ');
    const key = space < 0 ? line : line.slice(0, space);
    if (!signatureSeen && SIGNATURE_HEADERS.has(key)) {
      inSignature = true;
      signatureSeen = true;
      signature.push(line.slice(space + 1));
      continue;
    }
    if (key === 'committer') committerEmail = /<([^>]*)>/.exec(line)?.[1] ?? '';
    kept.push(line);
  }
  if (!signatureSeen) return 'unsigned';
  const rest = headerEnd < 0 ? Buffer.alloc(0) : data.subarray(headerEnd);
  const signedData = Buffer.concat([Buffer.from(kept.join('\n'), 'latin1'), rest]);
  const armored = `${signature.join('\n')}\n`;
  return { type: signatureType(armored), signature: Buffer.from(armored, 'latin1'), signedData, committerEmail };
}

function signatureType(armored: string): CommitSignature['type'] {
  if (armored.startsWith('-----BEGIN PGP SIGNATURE-----')) return 'PGP';
  if (armored.startsWith('-----BEGIN SSH SIGNATURE-----')) return 'SSH';
  return 'X509';
}
