import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pickColumns, rowToRecord, type ColumnKinds } from '../../../src/storage/sql/stores/row-mapping.ts';

interface Item {
  id: number;
  active: boolean;
  hidden: boolean;
  tags: string[];
}

const KINDS: ColumnKinds<Item> = { booleans: ['active', 'hidden'], json: ['tags'] };

describe('row mapping', () => {
  it('converts 0/1 to booleans and JSON text to values, leaving other columns alone', () => {
    assert.deepEqual(rowToRecord<Item>({ id: 1, active: 1, hidden: 0, tags: '["a","b"]', extra: 'x' }, KINDS), { id: 1, active: true, hidden: false, tags: ['a', 'b'], extra: 'x' });
    // PostgreSQL hands booleans and parsed JSON over as they are.
    assert.deepEqual(rowToRecord<Item>({ id: 2, active: true, hidden: false, tags: ['c'] }, KINDS), { id: 2, active: true, hidden: false, tags: ['c'] });
  });

  it('adds no column the row lacks', () => {
    const record = rowToRecord<Item>({ id: 3, tags: '[]' }, KINDS);
    assert.deepEqual(Object.keys(record), ['id', 'tags']);
  });

  it('keeps one converter per kinds object', () => {
    const other: ColumnKinds<Item> = { booleans: ['hidden'] };
    assert.deepEqual(rowToRecord<Item>({ id: 4, active: 1, hidden: 1 }, other), { id: 4, active: 1, hidden: true });
    assert.deepEqual(rowToRecord<Item>({ id: 5, active: 1, hidden: 1 }, KINDS), { id: 5, active: true, hidden: true });
  });

  it('picks the listed columns only, in their order', () => {
    const pick = pickColumns(['name', 'id', 'with "quotes"']);
    const picked = pick({ id: 1, name: 'a', other: 2, 'with "quotes"': 3 });
    assert.deepEqual(picked, { name: 'a', id: 1, 'with "quotes"': 3 });
    assert.deepEqual(Object.keys(picked), ['name', 'id', 'with "quotes"']);
  });
});
