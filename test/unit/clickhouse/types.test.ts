// The ClickHouse type mapping table: every SqlType kind, nullability rules, and what loses NULL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chType, lostNullability } from '../../../targets/clickhouse/types.ts';
import { T } from '../../../src/types/sql-type.ts';

test('scalars, decimals and timestamps', () => {
  assert.equal(chType(T.boolean(false)), 'Bool');
  assert.equal(chType(T.int(false)), 'Int32');
  assert.equal(chType(T.bigint()), 'Nullable(Int64)');
  assert.equal(chType(T.float(false)), 'Float32');
  assert.equal(chType(T.double(false)), 'Float64');
  assert.equal(chType(T.string(false)), 'String');
  assert.equal(chType(T.bytes(false)), 'String');
  assert.equal(chType(T.date(false)), 'Date32');
  assert.equal(chType(T.decimal(12, 2, false)), 'Decimal(12, 2)');
  assert.equal(chType(T.decimal(38, 6)), 'Nullable(Decimal(38, 6))');
  assert.equal(chType(T.timestamp(3, false)), "DateTime64(3, 'UTC')");
  assert.equal(chType(T.timestampLtz(6)), "Nullable(DateTime64(6, 'UTC'))");
});

test('composites: arrays, maps, rows; Nullable only around scalars, never around map keys', () => {
  assert.equal(chType(T.array(T.int(), false)), 'Array(Nullable(Int32))');
  assert.equal(chType(T.array(T.string(false))), 'Array(String)');
  assert.equal(chType(T.map(T.string(), T.bigint(), false)), 'Map(String, Nullable(Int64))');
  assert.equal(chType(T.row([{ name: 'a', type: T.int(false) }, { name: 'b`c', type: T.string() }], false)), 'Tuple(`a` Int32, `b``c` Nullable(String))');
});

test('lostNullability names every place a NULL cannot be stored', () => {
  assert.deepEqual(lostNullability(T.int(), 'x'), []);
  assert.deepEqual(lostNullability(T.array(T.int(), false), 'x'), []);
  assert.deepEqual(lostNullability(T.array(T.int()), 'x'), ['x']);
  assert.deepEqual(lostNullability(T.map(T.string(), T.array(T.int()), false), 'm'), ['m key', 'm{}']);
  assert.deepEqual(lostNullability(T.row([{ name: 'r', type: T.row([], true) }], false), 'o'), ['o.r']);
});
