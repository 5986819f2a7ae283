/**
 * The runner's `tls-ca-file`, `tls-cert-file` and `tls-key-file` inside a job, as gitlab-runner
 * hands them on: git fetches the sources trusting that CA (and presenting that certificate), and
 * the job gets them as file variables (CI_SERVER_TLS_CA_FILE; CI_SERVER_TLS_CERT_FILE and
 * CI_SERVER_TLS_KEY_FILE only as a pair), for its own calls to the instance. gitlab-runner also
 * records the chain an instance presents without a `tls-ca-file`; here only the configured files.
 */
import { readFile } from 'node:fs/promises';

/** The runner's TLS file paths (JobSettings has them). */
export interface TlsFiles {
  tlsCaFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
}

export interface ServerTls {
  ca?: string;
  cert?: string;
  key?: string;
}

/** The files' contents; one that cannot be read is left out (the runner's own requests would have failed on it first). */
export async function serverTls(settings: TlsFiles): Promise<ServerTls> {
  const read = (file: string | undefined): Promise<string | undefined> => (file ? readFile(file, 'utf8').catch(() => undefined) : Promise.resolve(undefined));
  const [ca, cert, key] = await Promise.all([read(settings.tlsCaFile), read(settings.tlsCertFile), read(settings.tlsKeyFile)]);
  return { ...(ca ? { ca } : {}), ...(cert && key ? { cert, key } : {}) };
}

/** git's environment for the same files (GIT_SSL_CAINFO, GIT_SSL_CERT, GIT_SSL_KEY), git running on this machine. */
export function gitTlsEnvironment(settings: TlsFiles): Record<string, string> {
  return {
    ...(settings.tlsCaFile ? { GIT_SSL_CAINFO: settings.tlsCaFile } : {}),
    ...(settings.tlsCertFile && settings.tlsKeyFile ? { GIT_SSL_CERT: settings.tlsCertFile, GIT_SSL_KEY: settings.tlsKeyFile } : {}),
  };
}
