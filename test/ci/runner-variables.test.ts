import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sortAndExpandForRunner } from '../../src/ci/runner-variables.ts';
import type { JobVariable } from '../../src/protocol/job-payload.ts';

const variable = (key: string, value: string, extra: Partial<JobVariable> = {}): JobVariable => ({ key, value, public: true, masked: false, ...extra });
const values = (list: readonly JobVariable[]): string[] => list.map((each) => `${each.key}=${each.value}`);

describe('the variables a runner receives (GitLab sort_and_expand_all)', () => {
  test('a variable refers to one that refers to another: each is expanded, after what it refers to', () => {
    const list = [variable('TOP', '${MID}-top'), variable('MID', '$BASE-mid'), variable('BASE', 'base')];
    assert.deepEqual(values(sortAndExpandForRunner(list)), ['BASE=base', 'MID=base-mid', 'TOP=base-mid-top']);
  });

  test('an inner reference is expanded and the outer one kept for the runner; unknown names stay as written', () => {
    const list = [variable('ENV', 'DEV'), variable('URL', '${URL_${ENV}}'), variable('OTHER', '$UNSET and %ENV%')];
    assert.deepEqual(values(sortAndExpandForRunner(list)), ['ENV=DEV', 'URL=${URL_DEV}', 'OTHER=$UNSET and DEV']);
  });

  test('$$ and %% stay for the runner; references to file and raw variables stay as written', () => {
    const list = [
      variable('A', 'a'),
      variable('KEYFILE', 'secret', { file: true }),
      variable('RAW', 'raw-$A', { raw: true }),
      variable('USE', '$$A %%A $KEYFILE $RAW $A'),
    ];
    assert.deepEqual(values(sortAndExpandForRunner(list)).at(-1), 'USE=$$A %%A $KEYFILE $RAW a');
  });

  test('every variable of a repeated name comes before the one that refers to it, in their order', () => {
    const list = [variable('USE', '$X'), variable('X', 'one'), variable('X', 'two')];
    assert.deepEqual(values(sortAndExpandForRunner(list)), ['X=one', 'X=two', 'USE=two']);
  });

  test('a variable referring to its own name takes the earlier value of that name', () => {
    const list = [variable('PATH', '/bin'), variable('PATH', '$PATH:/opt')];
    assert.deepEqual(values(sortAndExpandForRunner(list)), ['PATH=/bin', 'PATH=/bin:/opt']);
  });

  test('variables that refer to each other leave the whole list as it was', () => {
    const list = [variable('A', '$B'), variable('B', '$A'), variable('C', 'c'), variable('D', '$C')];
    assert.deepEqual(sortAndExpandForRunner(list), list);
  });

  test('values that double each other are held to a bound', () => {
    const list = [variable('V0', 'x'.repeat(1024))];
    for (let level = 1; level <= 20; level++) list.push(variable(`V${level}`, `$V${level - 1}$V${level - 1}`));
    const expanded = sortAndExpandForRunner(list);
    assert.ok(expanded.every((each) => each.value.length <= 64 * 1024));
    assert.equal(expanded.at(-1)?.value.length, 64 * 1024);
  });
});
