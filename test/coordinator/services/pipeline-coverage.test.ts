import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { averageCoverage } from '../../../src/coordinator/services/ci/pipelines/pipeline-coverage.ts';

/** The pipeline's coverage as GitLab's API shows it: `'%.2f' % (coverages.sum / coverages.size)` in Ruby. */
describe('averageCoverage', () => {
  it('is null without coverages, and two decimals of the average otherwise', () => {
    assert.equal(averageCoverage([]), null);
    assert.equal(averageCoverage([80, 77]), '78.50');
    assert.equal(averageCoverage([2.675]), '2.67', 'the binary value, just under the tie, rounds down');
    assert.equal(averageCoverage([1 / 3]), '0.33');
  });

  it("rounds a tie to the even digit, as Ruby's sprintf does", () => {
    assert.equal(averageCoverage([80.25, 80]), '80.12');
    assert.deepEqual([0.125, 0.375, 0.625, 0.875].map((value) => averageCoverage([value])), ['0.12', '0.38', '0.62', '0.88']);
    assert.equal(averageCoverage([12.5, 12.75]), '12.62');
  });

  it("sums as Ruby's Array#sum (compensated), so a tie a plain sum misses by a bit is still one", () => {
    // 42.398 + 47.212 + 9.765 summed in order is 99.37500000000001; compensated, 99.375 (a third: 33.125).
    assert.equal(averageCoverage([42.398, 47.212, 9.765]), '33.12');
    assert.equal(averageCoverage([86.475, 38.421, 36.909]), '53.94');
  });
});
