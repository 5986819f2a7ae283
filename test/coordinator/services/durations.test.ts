import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { humanDuration, MAX_DURATION_SECONDS, parseDuration } from '../../../src/coordinator/services/planning/durations.ts';

const H = 3600;

describe('GitLab durations', () => {
  it('reads every unit with 8-hour days, 5-day weeks and 4-week months', () => {
    assert.equal(parseDuration('1mo 2w 3d 4h 5m 6s'), 160 * H + 80 * H + 24 * H + 4 * H + 5 * 60 + 6);
    assert.equal(parseDuration('1h30m'), 5400);
    assert.equal(parseDuration('1w'), 40 * H);
    assert.equal(parseDuration('1d'), 8 * H);
    assert.equal(parseDuration('1 hour and 30 minutes'), 5400);
    assert.equal(parseDuration('2 days, 1 hr'), 17 * H);
    assert.equal(parseDuration('1y'), 31_557_600);
  });

  it('reads a bare number as hours, decimals, upper case and a leading minus', () => {
    assert.equal(parseDuration('3'), 3 * H);
    assert.equal(parseDuration('1.5h'), 5400);
    assert.equal(parseDuration('.5h'), 1800);
    assert.equal(parseDuration('2H 30M'), 9000);
    assert.equal(parseDuration('-1h'), -H);
    assert.equal(parseDuration('- 2h 30m'), -9000);
  });

  it('refuses what is no duration, zero unless kept, and more than the columns hold', () => {
    for (const bad of ['', '   ', 'foo', '1x', 'h', '1h foo', '1e5', '1..5h', '-', '1h-2m', 'one hour', '9'.repeat(101)]) assert.equal(parseDuration(bad), null, bad);
    assert.equal(parseDuration('0'), null);
    assert.equal(parseDuration('0h'), null);
    assert.equal(parseDuration('0', { keepZero: true }), 0);
    assert.equal(parseDuration(`${MAX_DURATION_SECONDS}s`), MAX_DURATION_SECONDS);
    assert.equal(parseDuration(`${MAX_DURATION_SECONDS + 1}s`), null);
    assert.equal(parseDuration('100000y'), null);
  });

  it("writes GitLab's human form, largest unit first, nothing for zero", () => {
    assert.equal(humanDuration(12600), '3h 30m');
    assert.equal(humanDuration(48 * H), '1w 1d');
    assert.equal(humanDuration(160 * H + 80 * H + 24 * H + 4 * H + 5 * 60 + 6), '1mo 2w 3d 4h 5m 6s');
    assert.equal(humanDuration(8 * H), '1d');
    assert.equal(humanDuration(59), '59s');
    assert.equal(humanDuration(0), null);
    assert.equal(humanDuration(-5), null);
  });

  it('reads back what it writes', () => {
    for (const seconds of [1, 61, 3600, 12600, 172800, 1_000_000, 40_000_000]) assert.equal(parseDuration(humanDuration(seconds)!), seconds);
  });
});
