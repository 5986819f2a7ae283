/** `include:remote`: what the compiler asks its reader for, what it merges, and GitLab's errors. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { compilePipeline, type CompileContext, type ContextVariable, type RemoteFileResult } from '../../src/ci/index.ts';
import { pushContext } from './fixture-support.ts';

function context(answers: Record<string, RemoteFileResult> | null, asked: string[] = [], variables: ContextVariable[] = [], files: Record<string, string> = {}): CompileContext {
  const remote = answers
    ? {
        readRemoteFile: async (url: string): Promise<RemoteFileResult> => {
          asked.push(url);
          return answers[url] ?? { status: 'http-code', code: 404 };
        },
      }
    : {};
  return pushContext({ readFile: async (path) => files[path] ?? null, ...remote }, { variables });
}

const SHARED = 'https://ci.example.com/shared.yml';
const errors = (result: Awaited<ReturnType<typeof compilePipeline>>) => result.errors.map((error) => error.message);

describe('include:remote', () => {
  test('merges the fetched file, as a bare URL or under remote:', async () => {
    const answers: Record<string, RemoteFileResult> = { [SHARED]: { status: 'found', content: 'shared: { script: echo shared }\n' } };
    for (const include of [SHARED, `{ remote: '${SHARED}' }`]) {
      const asked: string[] = [];
      const result = await compilePipeline(`include: ${include}\nown: { script: echo own }\n`, context(answers, asked));
      assert.equal(result.status, 'created', JSON.stringify(result.errors));
      assert.deepEqual(result.jobs.map((job) => job.name).sort(), ['own', 'shared']);
      assert.deepEqual(asked, [SHARED]);
    }
  });

  test('a remote file has no project, so its local includes are refused as GitLab refuses them', async () => {
    const answers: Record<string, RemoteFileResult> = {
      [SHARED]: { status: 'found', content: 'include: /ci/local.yml\nshared: { script: echo shared }\n' },
    };
    const files = { 'ci/local.yml': 'local: { script: echo local }\n' };
    const result = await compilePipeline(`include: ${SHARED}\nown: { script: echo own }\n`, context(answers, [], [], files));
    assert.deepEqual(errors(result), ['Local file `ci/local.yml` does not have project!']);
  });

  test('expands variables in the URL and masks a masked one in messages', async () => {
    const asked: string[] = [];
    const variables = [{ key: 'HOST', value: 'ci.example.com' }, { key: 'TOKEN', value: 's3cr3t-token', masked: true }];
    const result = await compilePipeline('include:\n  - remote: https://$HOST/ci.yml?token=$TOKEN\njob: { script: x }\n', context({}, asked, variables));
    assert.deepEqual(asked, ['https://ci.example.com/ci.yml?token=s3cr3t-token']);
    assert.deepEqual(errors(result), ['Remote file `https://ci.example.com/ci.yml?token=xxxxxxxxxxxx` could not be fetched because of HTTP code `404` error!']);
  });

  test("says why a file could not be had, in GitLab's words", async () => {
    const cases: Array<[RemoteFileResult, string]> = [
      [{ status: 'timeout' }, `Remote file \`${SHARED}\` could not be fetched because of a timeout error!`],
      [{ status: 'socket-error' }, `Remote file \`${SHARED}\` could not be fetched because of a socket error!`],
      [{ status: 'refused', reason: 'URL is blocked: Requests to the local network are not allowed' }, 'Remote file could not be fetched because URL is blocked: Requests to the local network are not allowed!'],
      [{ status: 'too-big' }, 'The parsed YAML is too big'],
      [{ status: 'found', content: '' }, `Included file \`${SHARED}\` is empty or does not exist!`],
      [{ status: 'found', content: 'job: [unclosed\n' }, `Included file \`${SHARED}\` does not have valid YAML syntax!`],
    ];
    for (const [answer, message] of cases) {
      const result = await compilePipeline(`include: ${SHARED}\njob: { script: x }\n`, context({ [SHARED]: answer }));
      assert.equal(result.status, 'invalid');
      assert.deepEqual(errors(result), [message]);
    }
  });

  test('refuses an address that is not http(s), and a remote include where nothing fetches', async () => {
    const asked: string[] = [];
    const invalid = await compilePipeline('include:\n  - remote: ftp://ci.example.com/ci.yml\njob: { script: x }\n', context({}, asked));
    assert.deepEqual(errors(invalid), ['Remote file `ftp://ci.example.com/ci.yml` does not have a valid address!']);
    assert.deepEqual(asked, [], 'nothing asked for');
    const unsupported = await compilePipeline(`include: ${SHARED}\njob: { script: x }\n`, context(null));
    assert.deepEqual(errors(unsupported), [`Remote include \`{"remote":"${SHARED}"}\` is not supported by this coordinator!`]);
  });

  test('integrity: the file must have that SHA-256', async () => {
    const content = 'shared: { script: echo shared }\n';
    const answers: Record<string, RemoteFileResult> = { [SHARED]: { status: 'found', content } };
    const digest = createHash('sha256').update(content).digest('base64');
    const intact = await compilePipeline(`include:\n  - remote: ${SHARED}\n    integrity: sha256-${digest}\n`, context(answers));
    assert.deepEqual(intact.jobs.map((job) => job.name), ['shared'], JSON.stringify(intact.errors));
    const other = createHash('sha256').update('other').digest('base64');
    const tampered = await compilePipeline(`include:\n  - remote: ${SHARED}\n    integrity: sha256-${other}\n`, context(answers));
    assert.deepEqual(errors(tampered), [`Remote file \`${SHARED}\` failed integrity check!`]);
  });

  test('the same URL twice is refused as a duplicate include', async () => {
    const answers: Record<string, RemoteFileResult> = { [SHARED]: { status: 'found', content: 'shared: { script: echo shared }\n' } };
    const result = await compilePipeline(`include: [${SHARED}, ${SHARED}]\n`, context(answers));
    assert.deepEqual(errors(result), [`Include \`{"remote":"${SHARED}"}\` was already included!`]);
  });
});
