import assert from 'node:assert/strict';
import { errorAnswer, type ErrorAnswerOverrides } from '../../src/coordinator/http/error-responses.ts';
import { isGantryError } from '../../src/shared/errors.ts';

/**
 * An `assert.throws`/`assert.rejects` validator: the error is a domain error the API answers
 * with `status` (and, when given, the body `{"message": message}`), as the HTTP edge maps it
 * (on a route answering some codes its own way, with that route's `overrides`).
 * Tests of storage and pure modules keep asserting what a client would get.
 */
export function answeredWith(status: number, message?: string, overrides?: ErrorAnswerOverrides): (error: unknown) => true {
  return (error) => {
    assert.ok(isGantryError(error), `expected a domain error, got ${String(error)}`);
    const answer = errorAnswer(error, overrides);
    assert.equal(answer.status, status, `${error.code} answers ${answer.status}`);
    if (message !== undefined) assert.deepEqual(answer.body, { message });
    return true;
  };
}
