import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '#deps/typebox';
import { coerceParams, Param } from '../../src/coordinator/http/gitlab-params.ts';

const schema = Type.Object({
  name: Param.string({ minLength: 1 }),
  count: Type.Optional(Param.integer({ minimum: 1, maximum: 100 })),
  ratio: Type.Optional(Param.number()),
  archived: Type.Optional(Param.boolean()),
  visibility: Type.Optional(Param.oneOf(['private', 'internal', 'public'])),
  tags: Type.Optional(Param.strings()),
  ids: Type.Optional(Param.integers()),
  attributes: Type.Optional(Param.hash()),
  expires_at: Type.Optional(Param.date()),
  since: Type.Optional(Param.dateTime()),
});

/** The result as plain JSON (the reader builds hashes without a prototype). */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function problemsOf(input: unknown): string[] {
  const result = coerceParams(schema, input);
  return result.ok ? [] : result.problems.map((problem) => `${problem.name} ${problem.problem}`);
}

describe('GitLab parameter coercion', () => {
  it('reads strings of every type the way grape does', () => {
    const result = coerceParams(schema, {
      name: 'x', count: '7', ratio: '0.5', archived: 'yes', visibility: 'public', tags: 'a, b', ids: ['1', '2'],
      attributes: { team: 'blue', size: 3 }, expires_at: '2030-01-31', since: '2030-01-31T10:00:00+02:00', ignored: 'dropped',
    });
    assert.deepEqual(plain(result), {
      ok: true,
      value: { name: 'x', count: 7, ratio: 0.5, archived: true, visibility: 'public', tags: ['a', 'b'], ids: [1, 2], attributes: { team: 'blue', size: '3' }, expires_at: '2030-01-31', since: '2030-01-31T08:00:00.000Z' },
    });
  });

  it('accepts JSON types as they are and treats empty strings as absent', () => {
    const result = coerceParams(schema, { name: 'x', count: 3, archived: false, tags: [], since: '' });
    assert.deepEqual(plain(result), { ok: true, value: { name: 'x', count: 3, archived: false, tags: [] } });
  });

  it('collects every problem in declaration order with grape messages', () => {
    assert.deepEqual(problemsOf({ count: '1.5', archived: 'maybe', visibility: 'secret' }), [
      'name is missing', 'count is invalid', 'archived is invalid', 'visibility does not have a valid value',
    ]);
    assert.deepEqual(problemsOf({ name: '   ' }), ['name is missing']);
    assert.deepEqual(problemsOf({ name: 'x', count: '0' }), ['count does not have a valid value']);
    assert.deepEqual(problemsOf({ name: 'x', count: '9223372036854775808' }), ['count is invalid']);
    assert.deepEqual(problemsOf({ name: 'x', ids: ['1', 'two'] }), ['ids is invalid']);
    assert.deepEqual(problemsOf({ name: ['x'] }), ['name is invalid']);
    assert.deepEqual(problemsOf({ name: 'x', attributes: 'team' }), ['attributes is invalid']);
    assert.deepEqual(problemsOf({ name: 'x', expires_at: '31/01/2030', since: 'yesterday' }), ['expires_at is invalid', 'since is invalid']);
  });

  it('reads a date given with a time of day as that day, as grape\'s Date does, and refuses days the calendar lacks', () => {
    const dayOf = (text: string): unknown => {
      const result = coerceParams(schema, { name: 'x', expires_at: text });
      return result.ok ? (result.value as { expires_at?: string }).expires_at : result.problems.map((problem) => `${problem.name} ${problem.problem}`);
    };
    assert.equal(dayOf('2020-01-01T00:00:00Z'), '2020-01-01');
    assert.equal(dayOf('2020-01-01T23:30:00-05:00'), '2020-01-01', 'the day as written, not moved to UTC');
    assert.equal(dayOf('2020-01-01 10:00:00.123+0200'), '2020-01-01');
    assert.equal(dayOf('2024-02-29'), '2024-02-29');
    assert.deepEqual(dayOf('2023-02-29'), ['expires_at is invalid']);
    assert.deepEqual(dayOf('2020-02-30'), ['expires_at is invalid']);
    assert.deepEqual(dayOf('2020-13-01'), ['expires_at is invalid']);
    assert.deepEqual(dayOf('2020-01-01Tnoon'), ['expires_at is invalid']);
  });

  it('reads a missing or non-object input as no parameters', () => {
    assert.deepEqual(problemsOf(undefined), ['name is missing']);
    assert.deepEqual(problemsOf('name=x'), ['name is missing']);
  });
});
