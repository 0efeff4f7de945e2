// Flink's type rules, with every expected type worked out by hand from LogicalTypeMerging's
// formulas (see src/check/CONTEXT.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import { arithmeticType, avgType, castable, comparable, promoteNumeric, sumType, unify } from '../../../src/check/type-rules.ts';

const d = (p: number, s: number, n = true) => T.decimal(p, s, n);

test('DECIMAL + DECIMAL: scale max, one more integer digit', () => {
  assert.deepEqual(arithmeticType('add', d(12, 2), d(12, 2)), d(13, 2));
  assert.deepEqual(arithmeticType('sub', d(5, 4), d(10, 1)), d(14, 4)); // int digits max(1, 9) = 9, +4 +1
});

test('DECIMAL * and / and %', () => {
  assert.deepEqual(arithmeticType('mul', d(12, 2), d(5, 3)), d(18, 5));
  assert.deepEqual(arithmeticType('div', d(12, 2), d(5, 3)), d(21, 8));
  assert.deepEqual(arithmeticType('mod', T.bigint(), d(7, 3)), d(7, 3));
});

test('DECIMAL overflow past 38 digits keeps at least 6 fractional digits', () => {
  assert.deepEqual(arithmeticType('mul', d(38, 10), d(38, 10)), d(38, 6));
  assert.deepEqual(arithmeticType('add', d(38, 2), d(38, 2)), d(38, 2)); // 39 digits: scale min(2, 6) kept
});

test('INT and BIGINT take part in DECIMAL arithmetic as DECIMAL(10,0) and DECIMAL(19,0)', () => {
  assert.deepEqual(arithmeticType('add', T.int(false), d(5, 2, false)), d(13, 2, false));
  assert.deepEqual(arithmeticType('mul', T.bigint(false), d(5, 2)), d(25, 2));
});

test('numeric promotion INT < BIGINT < DECIMAL < FLOAT < DOUBLE', () => {
  assert.deepEqual(promoteNumeric(T.int(false), T.bigint(false)), T.bigint(false));
  assert.deepEqual(promoteNumeric(T.int(), T.double(false)), T.double(true));
  assert.deepEqual(promoteNumeric(T.float(), d(5, 2)), T.double());
  assert.deepEqual(promoteNumeric(T.float(), T.int()), T.float());
  assert.equal(promoteNumeric(T.string(), T.int()), null);
  assert.deepEqual(arithmeticType('div', T.int(), T.int()), T.int()); // integer division, as Flink
});

test('SUM and AVG result types', () => {
  assert.deepEqual(sumType(d(12, 2), true), d(38, 2));
  assert.deepEqual(avgType(d(12, 2), false), d(38, 6, false));
  assert.deepEqual(avgType(d(20, 8), true), d(38, 8));
  assert.deepEqual(avgType(T.int(), true), T.int());
  assert.deepEqual(sumType(T.bigint(false), false), T.bigint(false));
});

test('unification of branches', () => {
  assert.deepEqual(unify(T.timestamp(3), T.timestamp(6, false)), T.timestamp(6));
  assert.deepEqual(unify(T.null(), T.int(false)), T.int(true));
  assert.deepEqual(unify(T.int(false), d(5, 2, false)), d(12, 2, false));
  assert.equal(unify(T.string(), T.int()), null);
  assert.equal(unify(T.timestamp(3), T.timestampLtz(3)), null);
});

test('comparability and CAST validity', () => {
  assert.equal(comparable(T.int(), d(12, 2), true), true);
  assert.equal(comparable(T.string(), T.int(), false), false);
  assert.equal(comparable(T.date(), T.timestamp(3), true), true);
  assert.equal(comparable(T.array(T.int()), T.array(T.int()), true), false);
  assert.equal(comparable(T.array(T.int()), T.array(T.int()), false), true);
  assert.equal(castable(T.string(), T.int()), true);
  assert.equal(castable(T.boolean(), T.date()), false);
  assert.equal(castable(T.int(), T.timestamp(3)), false);
  assert.equal(castable(T.array(T.int()), T.array(T.string())), true);
  assert.equal(castable(T.row([{ name: 'a', type: T.int() }]), T.row([])), false);
});
