/**
 * The instance's CI signing key, GitLab's `ci_jwt_signing_key`: the RSA key that signs jobs' ID
 * tokens (`id_tokens`), and whose public half the OIDC discovery's JWKS publishes. Made at the
 * first use, not at start-up (a `runner exec` run that needs no token pays nothing), and stored
 * sealed; several coordinators on one database settle on the first key written.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { CiSigningKeyStore } from '../../../storage/types-instances.ts';

/** A JWK of the public key, as GitLab's JWKS lists it. */
export interface PublicJwk {
  kty: 'RSA';
  kid: string;
  e: string;
  n: string;
  use: 'sig';
  alg: 'RS256';
}

export interface SigningKey {
  privateKey: KeyObject;
  /** The key's JWK thumbprint (RFC 7638, SHA-256), the `kid` of its tokens. */
  kid: string;
  jwk: PublicJwk;
}

// GitLab makes a 4096-bit key; 2048 bits (RS256's usual size) costs a `runner exec` run a tenth of the time to make.
const MODULUS_BITS = 2048;
const generate = promisify(generateKeyPair);

export class CiSigningKey {
  private loading: Promise<SigningKey> | undefined;

  constructor(private readonly deps: { store: CiSigningKeyStore; now?: () => Date }) {}

  /** The key, read (or made and recorded) once a process. */
  key(): Promise<SigningKey> {
    this.loading ??= this.load().catch((error: unknown) => {
      this.loading = undefined;
      throw error;
    });
    return this.loading;
  }

  private async load(): Promise<SigningKey> {
    let pem = await this.deps.store.find();
    if (pem === undefined) {
      const { privateKey } = await generate('rsa', { modulusLength: MODULUS_BITS });
      const made = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      pem = await this.deps.store.create(made, (this.deps.now?.() ?? new Date()).toISOString());
    }
    const privateKey = createPrivateKey(pem);
    const { e, n } = createPublicKey(privateKey).export({ format: 'jwk' });
    if (typeof e !== 'string' || typeof n !== 'string') throw new Error('the CI signing key is not an RSA key');
    const kid = thumbprint(e, n);
    return { privateKey, kid, jwk: { kty: 'RSA', kid, e, n, use: 'sig', alg: 'RS256' } };
  }
}

/** RFC 7638: SHA-256 of the required members in lexical order, without spaces, base64url. */
function thumbprint(e: string, n: string): string {
  return createHash('sha256').update(JSON.stringify({ e, kty: 'RSA', n })).digest('base64url');
}
