import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ColumnKinds, pickColumns } from '../../../src/storage/sql/stores/row-mapping.ts';

interface Item {
  id: number;
  name: string;
  active: boolean;
  hidden: boolean;
  tags: string[];
}

const KINDS = new ColumnKinds<Item>({ active: 'boolean', hidden: 'boolean', tags: 'json' });

describe('row mapping', () => {
  it('converts 0/1 to booleans and JSON text to values, leaving other columns alone', () => {
    assert.deepEqual(KINDS.toRecord({ id: 1, active: 1, hidden: 0, tags: '["a","b"]', extra: 'x' }), { id: 1, active: true, hidden: false, tags: ['a', 'b'], extra: 'x' });
    // PostgreSQL may hand booleans and parsed JSON over as they are.
    assert.deepEqual(KINDS.toRecord({ id: 2, active: true, hidden: false, tags: ['c'] }), { id: 2, active: true, hidden: false, tags: ['c'] });
  });

  it('adds no column the row lacks', () => {
    assert.deepEqual(Object.keys(KINDS.toRecord({ id: 3, tags: '[]' })), ['id', 'tags']);
  });

  it('turns the fields present into columns: booleans as 0/1, lists as JSON text, undefined fields left out', () => {
    assert.deepEqual(KINDS.toColumns({ name: 'a', active: true, hidden: false, tags: ['x'] }), { name: 'a', active: 1, hidden: 0, tags: '["x"]' });
    assert.deepEqual(KINDS.toColumns({ id: 4, name: undefined, active: undefined }), { id: 4 });
  });

  it('picks the listed columns only, in their order', () => {
    const row = { id: 1, name: 'a', other: 2, 'with "quotes"': 3 };
    const picked = pickColumns(row, ['name', 'id', 'with "quotes"']);
    assert.deepEqual(picked, { name: 'a', id: 1, 'with "quotes"': 3 });
    assert.deepEqual(Object.keys(picked), ['name', 'id', 'with "quotes"']);
  });
});
