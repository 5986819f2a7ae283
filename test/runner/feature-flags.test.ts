/** Where a feature flag comes from, as gitlab-runner resolves it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isFeatureFlagOn } from '../../src/runner/job/feature-flags.ts';

const on = (variables: Record<string, string>, environment: string[], featureFlags: Record<string, boolean>) =>
  isFeatureFlagOn('FF_X', Object.entries(variables).map(([key, value]) => ({ key, value })), { environment, featureFlags });

describe('feature flags', () => {
  it('takes [runners.feature_flags] over the job\'s variables, which cannot override it either way', () => {
    assert.equal(on({ FF_X: 'true' }, [], { FF_X: false }), false);
    assert.equal(on({ FF_X: 'false' }, ['FF_X=false'], { FF_X: true }), true);
  });

  it('without it, the job\'s variable (Go\'s ParseBool) over the runner\'s environment; off when neither says', () => {
    assert.equal(on({ FF_X: '1' }, ['FF_X=false'], {}), true);
    assert.equal(on({ FF_X: 'F' }, ['FF_X=true'], {}), false);
    assert.equal(on({}, ['FF_X=TRUE'], {}), true);
    assert.equal(on({ FF_X: 'yes' }, ['FF_X=true'], {}), false, 'a value ParseBool refuses: the default');
    assert.equal(on({}, [], {}), false);
  });
});
