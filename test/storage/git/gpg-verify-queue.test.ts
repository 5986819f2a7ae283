import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GantryError } from '../../../src/shared/errors.ts';
import { GpgVerifier } from '../../../src/storage/git/gpg-verify.ts';
import { within } from '../../helpers/bounded.ts';

describe('the signature verification queue', () => {
  it('refuses past its waiting room with a message true of a limit shared by all requesters', async () => {
    const verifier = new GpgVerifier();
    // Slots are taken synchronously as each call starts: 2 run, 32 wait, the rest are refused.
    const calls = Array.from({ length: 40 }, () => verifier.issuer(Buffer.from('not a signature')));
    const settled = await within(Promise.allSettled(calls), 120_000, 'forty issuer reads');
    const refused = settled.filter((result): result is PromiseRejectedResult => result.status === 'rejected');
    assert.equal(refused.length, 6);
    for (const { reason } of refused) {
      assert.ok(reason instanceof GantryError);
      assert.equal(reason.code, 'GANTRY_E_GIT_TOO_MANY_WAITING');
      assert.doesNotMatch(reason.message, /this requester/i);
      assert.match(reason.message, /signature verifications are waiting .*all requesters/);
    }
    assert.ok(settled.slice(0, 34).every((result) => result.status === 'fulfilled' && result.value === null));
  });
});
