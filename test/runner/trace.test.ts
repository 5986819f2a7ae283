import assert from 'node:assert/strict';
import { execa } from '#deps/execa';
import { describe, it } from 'node:test';
import { StreamMasker } from '../../src/runner/job/masker.ts';
import { PatternMasker } from '../../src/runner/job/pattern-masker.ts';
import { quote } from '../../src/runner/job/script.ts';
import { JobTrace } from '../../src/runner/job/trace.ts';
import { buildVariables, expandValue } from '../../src/runner/job/variables.ts';

function maskAll(secrets: string[], writes: string[]): string {
  const masker = new StreamMasker(secrets);
  return Buffer.concat([...writes.map((write) => masker.write(Buffer.from(write))), masker.flush()]).toString();
}

describe('masking', () => {
  it('masks whole values, in any split across writes', () => {
    const text = 'before secret-value after secret-value!';
    for (let split = 0; split <= text.length; split++) {
      assert.equal(maskAll(['secret-value'], [text.slice(0, split), text.slice(split)]), 'before [MASKED] after [MASKED]!', `split at ${split}`);
    }
    assert.equal(maskAll(['abc'], ['a', 'b', 'c', 'a', 'b', 'x']), '[MASKED]abx');
  });

  it('masks the longer value when one is a prefix of another, even split across writes', () => {
    assert.equal(maskAll(['pass', 'password'], ['my password and pass']), 'my [MASKED] and [MASKED]');
    assert.equal(maskAll(['pass', 'password'], ['my pass', 'word!']), 'my [MASKED]!');
    assert.equal(maskAll(['pass', 'password'], ['my pass', 'port']), 'my [MASKED]port');
  });

  it('holds back only what could still become a value, and releases it on flush', () => {
    const masker = new StreamMasker(['secret']);
    assert.equal(masker.write(Buffer.from('hello sec')).toString(), 'hello ');
    assert.equal(masker.flush().toString(), 'sec');
    assert.equal(new StreamMasker([]).write(Buffer.from('as is')).toString(), 'as is');
  });

  it('works on bytes: a multi-byte value split inside a character', () => {
    const value = Buffer.from('gé-heim');
    const masker = new StreamMasker(['gé-heim']);
    const out = Buffer.concat([masker.write(Buffer.concat([Buffer.from('x '), value.subarray(0, 2)])), masker.write(value.subarray(2)), masker.flush()]);
    assert.equal(out.toString(), 'x [MASKED]');
  });
});

describe('trace', () => {
  it('masks credential URL parameters and prefixed tokens as gitlab-runner, in any split across writes', () => {
    const text = 'GET /x?X-Amz-Credential=AK%2F1&private_token=abc&keep=1 glpat-ab.c_9= mytoken:xyz myto glpa foobar-q\n';
    const expected = 'GET /x?X-Amz-Credential=[MASKED]&private_token=[MASKED]&keep=1 glpat-[MASKED] mytoken:[MASKED] myto glpa foobar-[MASKED]\n';
    for (let split = 0; split <= text.length; split++) {
      const masker = new PatternMasker(['mytoken:', 'foobar-']);
      const out = Buffer.concat([masker.write(Buffer.from(text.slice(0, split))), masker.write(Buffer.from(text.slice(split))), masker.flush()]);
      assert.equal(out.toString(), expected, `split at ${split}`);
    }
    const ending = new PatternMasker();
    assert.equal(Buffer.concat([ending.write(Buffer.from('?rss_token=abc')), ending.flush(), ending.write(Buffer.from(' glp')), ending.flush()]).toString(), '?rss_token=[MASKED] glp');
    // The prefixes mask before the masked values: a masked value holding a token keeps its prefix.
    const trace: Buffer[] = [];
    const jobTrace = new JobTrace({ sink: (bytes) => trace.push(bytes), maskedValues: ['glpat-secret', 'MASKED_VALUE', 'MASKED_VALUE_OTHER'], limitBytes: 1 << 20, sections: false });
    jobTrace.write('A=glpat-secret B=MASKED_VALUE_OTHER C=MASKED_VALUE\n');
    jobTrace.close();
    assert.equal(Buffer.concat(trace).toString(), 'A=glpat-[MASKED] B=[MASKED] C=[MASKED]\n');
  });

  it('replaces invalid UTF-8 after masking, one U+FFFD a byte as Go does, and joins a character split across writes', () => {
    const trace: Buffer[] = [];
    const jobTrace = new JobTrace({ sink: (bytes) => trace.push(bytes), maskedValues: ['hello'], limitBytes: 1 << 20, sections: false });
    jobTrace.write(Buffer.from([...Buffer.from('hello a'), 0xff, 0x62, 0x20, 0xe2, 0x82, 0x41, 0x20, 0xed, 0xa0, 0x80, 0x0a]));
    jobTrace.write(Buffer.from([0x61, 0xe2, 0x82]));
    jobTrace.write(Buffer.from([0xac, 0x0a, 0xf0, 0x9f]));
    jobTrace.close();
    const R = '\ufffd';
    // A surrogate's encoding (ED A0 80) is no UTF-8: three replacements, as Go's decoder gives.
    assert.equal(Buffer.concat(trace).toString('utf8'), `[MASKED] a${R}b ${R}${R}A ${R}${R}${R}\na\u20ac\n${R}${R}`);
  });

  it('writes runner lines with gitlab-runner prefixes and section markers', () => {
    const chunks: Buffer[] = [];
    const trace = new JobTrace({ sink: (bytes) => chunks.push(bytes), maskedValues: [], limitBytes: 1 << 20, sections: true, now: () => new Date(1_795_336_469_000) });
    trace.sectionStart('get_sources', 'Getting source from Git repository');
    trace.warning('careful');
    trace.sectionEnd('get_sources');
    trace.info('Job succeeded');
    assert.equal(
      Buffer.concat(chunks).toString(),
      'section_start:1795336469:get_sources\r\x1b[0K\x1b[0K\x1b[36;1mGetting source from Git repository\x1b[0;m\n\x1b[0;m' +
        '\x1b[0;33mWARNING: careful\n\x1b[0;m' +
        'section_end:1795336469:get_sources\r\x1b[0K' +
        '\x1b[32;1mJob succeeded\n\x1b[0;m',
    );
  });

  it('writes nothing once closed: a line still coming (a service\'s output followed) is dropped', () => {
    const chunks: Buffer[] = [];
    const trace = new JobTrace({ sink: (bytes) => chunks.push(bytes), maskedValues: [], limitBytes: 1 << 20, sections: false });
    trace.info('Job succeeded');
    trace.close();
    trace.println('[service:db] late line');
    trace.write('late output\n');
    assert.equal(Buffer.concat(chunks).toString(), '\x1b[32;1mJob succeeded\n\x1b[0;m');
  });

  it('counts the limit after masking and writes the message once', () => {
    const chunks: Buffer[] = [];
    const trace = new JobTrace({ sink: (bytes) => chunks.push(bytes), maskedValues: ['0123456789'], limitBytes: 12, sections: false });
    trace.write('0123456789 abcdef');
    trace.write('more');
    assert.equal(Buffer.concat(chunks).toString(), "[MASKED] abc\n\x1b[33;1mJob's log exceeded limit of 12 bytes.\nJob execution will continue but no more output will be collected.\x1b[0;m\n");
  });
});

describe('script quoting and variables', () => {
  const nasty = ["plain", "with space", "it's", 'dollar $HOME and `cmd` and $(cmd)', 'back\\slash', 'new\nline\ttab', '\x1b[32;1mcolour\x1b[0;m', '', 'ünïcödé', "'\"'"];
  for (const shell of ['bash', 'sh'] as const) {
    it(`quote() reads back verbatim in ${shell}`, async () => {
      const script = nasty.map((value) => `printf '%s\\0' ${quote(value, shell)}`).join('\n');
      const { stdout } = await execa(shell === 'bash' ? 'bash' : 'sh', shell === 'bash' ? ['--noprofile', '--norc', '-c', script] : ['-c', script], { stripFinalNewline: false });
      assert.deepEqual(stdout.split('\0').slice(0, -1), nasty);
    });
  }

  it("expands like gitlab-runner: $VAR, ${VAR}, $$, unknown to empty, raw untouched, later entries win", () => {
    const list = [
      { key: 'A', value: 'first' },
      { key: 'A', value: 'second' },
    ];
    assert.equal(expandValue('$A ${A} $$ $NOPE ${} x$', list), 'second second $   x$');
    const variables = buildVariables(
      [
        { key: 'BASE', value: 'b', public: true, masked: false },
        { key: 'USE', value: '$BASE/$CI_PROJECT_DIR', public: true, masked: false },
        { key: 'RAW', value: '$BASE', public: true, masked: false, raw: true },
      ],
      { image: null, shortToken: 'abcdefgh', environment: ['ENV_ONE=1'], buildsDir: '/b', projectDir: '/b/p', concurrentId: 0, concurrentProjectId: 0, jobStatus: 'running', jobTimeout: 3600, shared: true, version: '0.1.0', revision: 'r', arch: 'linux/amd64' },
    );
    const get = (key: string) => variables.findLast((variable) => variable.key === key)?.value;
    assert.equal(get('USE'), 'b//b/p');
    assert.equal(get('RAW'), '$BASE');
    assert.equal(get('ENV_ONE'), '1');
    // gitlab-runner 13.12's feature flags with their defaults come first, then its own variables.
    assert.deepEqual(variables.slice(0, 3).map((variable) => `${variable.key}=${variable.value}`), ['FF_CMD_DISABLE_DELAYED_ERROR_LEVEL_EXPANSION=false', 'FF_NETWORK_PER_BUILD=false', 'FF_USE_LEGACY_KUBERNETES_EXECUTION_STRATEGY=true']);
    assert.equal(variables.filter((variable) => variable.key.startsWith('FF_')).length, 15);
    assert.deepEqual(variables.slice(15, 17).map((variable) => variable.key), ['CI_RUNNER_SHORT_TOKEN', 'ENV_ONE']);
    const configured = buildVariables([], { image: null, shortToken: 'abcdefgh', environment: [], buildsDir: '/b', projectDir: '/b/p', concurrentId: 0, concurrentProjectId: 0, jobStatus: 'running', jobTimeout: 3600, shared: true, version: '0.1.0', revision: 'r', arch: 'linux/amd64', featureFlags: { FF_USE_FASTZIP: true } });
    assert.equal(configured.find((variable) => variable.key === 'FF_USE_FASTZIP')?.value, 'true');
  });
});
