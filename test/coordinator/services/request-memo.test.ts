import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestMemos } from '../../../src/coordinator/services/access/request-memo.ts';
import type { UserRecord } from '../../../src/storage/types.ts';

const caller = { id: 7, username: 'dev', is_admin: false, external: false } as UserRecord;

describe('request memos', () => {
  it('travel with the caller a read request carries, copies made by spreading included', () => {
    const memos = new RequestMemos();
    const reader = memos.open(caller);
    const memo = memos.of(reader);
    assert.ok(memo, 'the opened caller has a memo');
    assert.equal(memos.of({ ...reader }), memo, 'a spread copy shares the request’s memo');
    assert.equal(memos.of({ ...reader, name: 'renamed' } as UserRecord), memo, 'so does a copy with other display fields');
    assert.equal(JSON.stringify(reader), JSON.stringify(caller), 'the memo never shows in JSON');
  });

  it('give no memo to a copy altered to another caller, to the original record, or after the request is answered', () => {
    const memos = new RequestMemos();
    const reader = memos.open(caller);
    assert.equal(memos.of({ ...reader, id: 8 }), undefined, 'another user');
    assert.equal(memos.of({ ...reader, is_admin: true }), undefined, 'an administrator');
    assert.equal(memos.of({ ...reader, external: true }), undefined, 'an external user');
    assert.equal(memos.of(caller), undefined, 'the record authentication handed out (shared by other requests)');
    const copy = { ...reader };
    memos.close(reader);
    assert.equal(memos.of(reader), undefined);
    assert.equal(memos.of(copy), undefined, 'a copy made before the answer');
  });

  it('are separate for two requests of the same caller', () => {
    const memos = new RequestMemos();
    assert.notEqual(memos.of(memos.open(caller)), memos.of(memos.open(caller)));
  });
});
