/** The runner's tls-ca-file (and client certificate) inside a job: git trusts that CA, and the job gets them as CI_SERVER_TLS_* file variables. */
import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitServer, type GitServer } from './git-http-server.ts';
import { gitRepository, jobSettings, payload, runShellJob, variable } from './support.ts';

/** A CA of its own and a certificate it signed for 127.0.0.1. */
async function certificates(): Promise<{ dir: string; ca: string; cert: string; key: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gantry-tls-'));
  const openssl = (...args: string[]) => execa('openssl', args, { cwd: dir });
  await openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=gantry test CA');
  await openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
  await writeFile(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
  await openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext');
  return { dir, ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'server.pem'), key: path.join(dir, 'server.key') };
}

describe('the runner\'s TLS files in a job', () => {
  const token = 'jobtok-tls-secret';
  let server: GitServer;
  let files: Awaited<ReturnType<typeof certificates>>;
  let repo: Awaited<ReturnType<typeof gitRepository>>;
  before(async () => {
    files = await certificates();
    repo = await gitRepository({ 'README.md': 'over https\n' });
    server = await startGitServer(path.dirname(path.dirname(repo.bare)), token, { cert: await readFile(files.cert, 'utf8'), key: await readFile(files.key, 'utf8') });
  });
  after(() => server.close());

  const run = async (settings: Parameters<typeof jobSettings>[0]) => {
    const repoUrl = server.url.replace('https://', `https://gitlab-ci-token:${token}@`) + '/group/project.git';
    const job = payload({
      token,
      git_info: { repo_url: repoUrl, ref: 'main', sha: repo.sha, before_sha: '0'.repeat(40), ref_type: 'branch', refspecs: ['+refs/heads/main:refs/remotes/origin/main'], depth: 0 },
      variables: [variable('GIT_STRATEGY', 'clone')],
      steps: [{ name: 'script', script: ['cat README.md', 'cat "$CI_SERVER_TLS_CA_FILE"', 'echo "cert=${CI_SERVER_TLS_CERT_FILE:+set} key=${CI_SERVER_TLS_KEY_FILE:+set}"'], timeout: 3600, when: 'on_success', allow_failure: false }],
    });
    return runShellJob(job, await jobSettings(settings));
  };

  it('fetches from an instance whose certificate the runner\'s tls-ca-file signed, and hands the CA to the job as CI_SERVER_TLS_CA_FILE', async () => {
    const { outcome, trace } = await run({ tlsCaFile: files.ca });
    assert.deepEqual(outcome, { state: 'success' }, trace);
    assert.ok(trace.includes('\nover https\n'), trace);
    assert.ok(trace.includes((await readFile(files.ca, 'utf8')).split('\n')[1]), 'the CA file variable holds the certificate');
    assert.ok(trace.includes('\ncert= key=\n'), 'no client certificate configured: no CERT and KEY variables');
  });

  it('without it, git refuses the certificate', async () => {
    const { outcome, trace } = await run({});
    assert.equal(outcome.state, 'failed', trace);
    assert.match(trace, /certificate/i);
  });

  it('gives the client certificate and key only as a pair', async () => {
    const both = await run({ tlsCaFile: files.ca, tlsCertFile: files.cert, tlsKeyFile: files.key });
    assert.ok(both.trace.includes('\ncert=set key=set\n'), both.trace);
    const certOnly = await run({ tlsCaFile: files.ca, tlsCertFile: files.cert });
    assert.ok(certOnly.trace.includes('\ncert= key=\n'), certOnly.trace);
  });
});
