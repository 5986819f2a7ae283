import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { RegexBudget } from '../../src/shared/regex-budget.ts';

describe('RegexBudget', () => {
  const budget = new RegexBudget({ maxProgramSize: 100 });
  after(() => budget.close());

  it('checks RE2 syntax: no backreferences, look-around nor repeats over 1,000', async () => {
    assert.equal(await budget.check('^release/\\d+$'), 'valid');
    assert.equal(await budget.check('(?i)\\pL+'), 'valid');
    for (const refused of ['(unclosed', '(a)\\1', '(?<=a)b', '(?=a)', 'a{1001}', '[z-a]']) assert.equal(await budget.check(refused), 'invalid', refused);
  });

  it('refuses a program over the size budget, and one that would take the thread past its time or heap', async () => {
    assert.equal(await budget.check('x{90}'), 'valid');
    assert.equal(await budget.check('x{120}'), 'over budget');
    const unbounded = new RegexBudget({ maxProgramSize: Number.MAX_SAFE_INTEGER });
    try {
      // Seconds and hundreds of MB for re2js to compile.
      assert.equal(await unbounded.check('(a{1,1000})'.repeat(360)), 'over budget');
      // The thread was ended; the next call starts another.
      assert.equal(await unbounded.matches('b+', 'abba'), true);
    } finally {
      await unbounded.close();
    }
  });

  it('matches anywhere in the text, and a refused pattern matches nothing', async () => {
    assert.equal(await budget.matches('release/\\d', 'hot/release/2'), true);
    assert.equal(await budget.matches('^release/\\d', 'hot/release/2'), false);
    assert.equal(await budget.matches('(?i)^main$', 'MAIN'), true);
    assert.equal(await budget.matches('(', '('), false);
    assert.equal(await budget.matches('x{120}', 'x'.repeat(200)), false);
  });

  it('answers calls made together, each its own', async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((letter) => budget.matches(`^${letter}`, 'c-branch')));
    assert.deepEqual(answers, [false, false, true, false]);
  });

  it('starts its thread again after ending it when idle', async () => {
    const brief = new RegexBudget({ idleMs: 1 });
    try {
      assert.equal(await brief.matches('^a', 'abc'), true);
      await sleep(50);
      assert.equal(await brief.matches('^b', 'abc'), false);
      assert.equal(await brief.check('b)'), 'invalid');
    } finally {
      await brief.close();
    }
  });
});
