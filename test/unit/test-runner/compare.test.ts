// How `pipec test` compares expected with produced rows: values by their written text with
// numbers and timestamps normalized; sets ignore order, `exact` does not; columns are those the
// expected rows name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canon, compareRows } from '../../../src/test-runner/compare.ts';

test('numbers and timestamps compare by value, whatever their spelling', () => {
  assert.equal(canon(12.5), canon('12.50'));
  assert.equal(canon('-0012.500'), '-12.5');
  assert.equal(canon('2026-01-01 00:01:00'), canon('2026-01-01T00:01:00.000Z'));
  assert.notEqual(canon('2026-01-01 00:01:00'), canon('2026-01-01 00:01:01'));
  assert.equal(canon(null), 'NULL');
  assert.notEqual(canon('12.5x'), canon(12.5));
});

test('set order ignores order but counts duplicates; exact order does not ignore order', () => {
  const a = { k: 1 };
  const b = { k: 2 };
  assert.equal(compareRows([a, b], [b, a], 'set').ok, true);
  assert.equal(compareRows([a, a], [a], 'set').ok, false);
  const ex = compareRows([a, b], [b, a], 'exact');
  assert.equal(ex.ok, false);
  assert.match(ex.table, /^[-+] \| /m);
});

test('only the columns the expected rows name are compared; the diff marks missing and unexpected rows', () => {
  const c = compareRows([{ id: 1, v: 'x' }], [{ id: 1, v: 'y', extra: 9 }], 'set');
  assert.deepEqual(c.columns, ['id', 'v']);
  assert.equal(c.table, ['  | id | v |', '--+----+---+', '- | 1  | x |', '+ | 1  | y |'].join('\n'));
  assert.equal(compareRows([{ id: 1 }], [{ id: 1, extra: 9 }], 'set').ok, true);
});
