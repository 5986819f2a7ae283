import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { environmentSlug, refSlug } from '../../src/ci/slug.ts';

describe('slugs', () => {
  test('an environment slug is the name when it is already one', () => {
    assert.equal(environmentSlug('production'), 'production');
    assert.equal(environmentSlug('staging-1234567890123456'), 'staging-1234567890123456');
  });

  test('a changed or long name gets the last six base-36 digits of its SHA-256, as GitLab computes them', () => {
    assert.equal(environmentSlug('PRODUCTION'), 'production-vl4voz');
    assert.equal(environmentSlug('review/1-foo'), 'review-1-foo-9tdj0u');
    assert.equal(environmentSlug('Stage Domain'), 'stage-domain-ip33nk');
    assert.equal(environmentSlug('1/foo'), 'env-1-foo-t4rmb4');
    assert.equal(environmentSlug('staging-12345678901234567'), 'staging-123456789-s729ne');
  });

  test('an unchanged name loses a trailing dash', () => {
    assert.equal(environmentSlug('foo-'), 'foo');
  });

  test('a ref slug is lowercase, dashed, at most 63 characters, without edge dashes', () => {
    assert.equal(refSlug('Feature/Login_Form'), 'feature-login-form');
    assert.equal(refSlug(`-${'a'.repeat(70)}`), 'a'.repeat(62));
  });
});
