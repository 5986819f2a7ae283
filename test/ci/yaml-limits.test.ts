import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { compilePipeline } from '../../src/ci/index.ts';
import { DEFAULT_LIMITS } from '../../src/ci/limits.ts';
import { loadYaml } from '../../src/ci/yaml-loader.ts';
import { prescanYaml } from '../../src/ci/yaml-prescan.ts';

const limits = { maxYamlDepth: 10, maxAliasCount: 5 };

/** Documents whose collections nest `depth` deep, in each way YAML can nest them. */
const SHAPES: Record<string, (depth: number) => string> = {
  'flow sequences': (depth) => `a: ${'['.repeat(depth - 1)}x${']'.repeat(depth - 1)}\n`,
  'flow mappings': (depth) => `a: ${'{b: '.repeat(depth - 1)}x${'}'.repeat(depth - 1)}\n`,
  'block mappings': (depth) => Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}k${level}:${level === depth - 1 ? ' x' : ''}`).join('\n') + '\n',
  'compact block sequences': (depth) => `a:\n${'- '.repeat(depth - 1)}x\n`,
  'sequences at their key\'s column': (depth) => {
    // k0:\n- k1:\n  - k2:\n    - x — a mapping and a sequence per line after the first.
    const pairs = Math.floor(depth / 2);
    const lines = ['k0:'];
    for (let line = 1; line <= pairs; line++) {
      const last = line === pairs;
      lines.push(`${'  '.repeat(line - 1)}- ${last ? (depth % 2 === 1 ? 'k: x' : 'x') : `k${line}:`}`);
    }
    return `${lines.join('\n')}\n`;
  },
};

describe('YAML size and shape limits, before a document is built', () => {
  test('the pre-scan measures nesting as the parser builds it', () => {
    for (const [shape, build] of Object.entries(SHAPES)) {
      assert.equal(prescanYaml(build(limits.maxYamlDepth), limits), null, `${shape} at the limit`);
      assert.equal(prescanYaml(build(limits.maxYamlDepth + 1), limits), 'too-deep', `${shape} past the limit`);
    }
  });

  test('the pre-scan counts aliases', () => {
    const aliases = (count: number) => `a: &a [1]\nb: [${Array.from({ length: count }, () => '*a').join(', ')}]\n`;
    assert.equal(prescanYaml(aliases(5), limits), null);
    assert.equal(prescanYaml(aliases(6), limits), 'too-many-aliases');
  });

  test('real CI files are not refused', () => {
    const ci = [
      'stages: [build, test]',
      '.base: &base',
      '  image: { name: node:20, entrypoint: [""] }',
      '  before_script:',
      '    - |',
      '      echo "- [ { not yaml } ]"',
      '      : ? - x',
      'build:',
      '  <<: *base',
      '  script: ["make", { x: [1, [2]] }]',
      '  rules:',
      '    - if: \'$CI_COMMIT_BRANCH == "main"\'',
      '      when: always',
      '    - changes:',
      '        - src/**/*',
      '? complex key',
      ': value',
      'test:',
      '  script: make test',
    ].join('\n');
    assert.equal(prescanYaml(ci, { maxYamlDepth: 6, maxAliasCount: 1 }), null);
    assert.equal(prescanYaml(ci, { maxYamlDepth: 5, maxAliasCount: 1 }), 'too-deep');
  });

  test('a 1 MB document of nested flow sequences is refused as too big, not built', () => {
    const depth = 500_000;
    const nested = `a: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
    const loaded = loadYaml(nested, '.gitlab-ci.yml', DEFAULT_LIMITS);
    assert.deepEqual(loaded, { ok: false, failure: 'too-big', line: null, detail: 'document is nested too deeply' });
  });

  test('compact sequences and aliases past the limits are refused as too big', async () => {
    const context = { project: { id: 1, path: 'a/b' }, ref: 'main', refType: 'branch' as const, sha: 'a'.repeat(40), source: 'push', files: { readFile: async () => null } };
    const deep = `job:\n  script:\n${'- '.repeat(300_000)}x\n`;
    const aliased = `a: &a [1]\nb: [${Array.from({ length: 20_000 }, () => '*a').join(', ')}]\njob:\n  script: x\n`;
    assert.deepEqual(loadYaml(aliased, '.gitlab-ci.yml', DEFAULT_LIMITS), { ok: false, failure: 'too-big', line: null, detail: 'too many aliases' });
    for (const text of [deep, aliased]) {
      const result = await compilePipeline(text, context);
      assert.deepEqual(result.errors.map((error) => error.message), ['The parsed YAML is too big']);
    }
  });
});
