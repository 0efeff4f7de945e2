// Every entry of the scalar function table evaluated by ClickHouse (chdb) on literal arguments,
// against values worked out by hand from SQL semantics (Flink's where LANGUAGE.md is silent).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FUNCTIONS, compileExpr } from '../../../targets/clickhouse/functions.ts';
import { IR_FNS, type IrExpr, type IrFn, type SqlType, type TimeUnitName } from '../../../src/plan/ir.ts';
import { T } from '../../../src/types/sql-type.ts';
import { chType } from '../../../targets/clickhouse/types.ts';
import { call, lit } from '../../fixtures/clickhouse/plan-builder.ts';
import { runChdb } from '../../support/chdb.ts';

const TS = T.timestamp(3);
const ts = (iso: string): IrExpr => lit(Date.parse(iso + 'Z'), TS);
const i = (n: number): IrExpr => lit(n, T.int(false));
const s = (v: string | null): IrExpr => lit(v, T.string());
const d = (v: string, p: number, sc: number): IrExpr => lit(v, T.decimal(p, sc));
const b = (v: boolean): IrExpr => lit(v, T.boolean());
const u = (fn: IrFn, unit: TimeUnitName, args: IrExpr[], type: SqlType): IrExpr => ({ kind: 'call', fn, args, type, unit });

// [function, expression, expected value as ClickHouse prints it in JSON (null for NULL)]
const CASES: [IrFn, IrExpr, unknown][] = [
  ['add', call('add', [i(2), i(3)], T.int()), 5],
  ['add', call('add', [ts('2020-04-15T08:00:00'), lit(60_000, T.interval())], TS), '2020-04-15 08:01:00.000'],
  ['sub', call('sub', [d('1.10', 3, 2), d('0.25', 3, 2)], T.decimal(4, 2)), 0.85],
  ['sub', call('sub', [ts('2020-04-15T08:01:00'), ts('2020-04-15T08:00:00')], T.interval()), 60000],
  ['mul', call('mul', [d('1.5', 2, 1), d('2.25', 3, 2)], T.decimal(6, 3)), 3.375],
  ['div', call('div', [i(-7), i(2)], T.int()), -3],
  // DECIMAL(4,2) / DECIMAL(1,0) → DECIMAL(8, 6); 2/3 rounds half up to 0.666667.
  ['div', call('div', [d('2.00', 4, 2), d('3', 1, 0)], T.decimal(8, 6)), 0.666667],
  ['mod', call('mod', [i(-7), i(3)], T.int()), -1],
  ['neg', call('neg', [i(5)], T.int()), -5],
  ['eq', call('eq', [i(1), i(1)], T.boolean()), true],
  ['ne', call('ne', [i(1), i(1)], T.boolean()), false],
  ['lt', call('lt', [i(1), i(2)], T.boolean()), true],
  ['le', call('le', [i(2), i(2)], T.boolean()), true],
  ['gt', call('gt', [i(1), i(2)], T.boolean()), false],
  ['ge', call('ge', [i(1), i(2)], T.boolean()), false],
  ['and', call('and', [b(true), b(false)], T.boolean()), false],
  ['or', call('or', [b(true), b(false)], T.boolean()), true],
  ['not', call('not', [b(true)], T.boolean()), false],
  ['is_null', call('is_null', [lit(null, T.int())], T.boolean(false)), true],
  ['is_not_null', call('is_not_null', [i(1)], T.boolean(false)), true],
  ['in', call('in', [i(2), i(1), i(2), i(3)], T.boolean()), true],
  ['not_in', call('not_in', [i(2), i(1), i(3)], T.boolean()), true],
  ['like', call('like', [s('hello'), s('h_l%')], T.boolean()), true],
  ['not_like', call('not_like', [s('hello'), s('x%')], T.boolean()), true],
  ['concat', call('concat', [s('a'), s('b'), s('c')], T.string()), 'abc'],
  ['concat', call('concat', [s('a'), s(null)], T.string()), null],
  ['lower', call('lower', [s('ÄB')], T.string()), 'äb'],
  ['upper', call('upper', [s('äb')], T.string()), 'ÄB'],
  ['substring', call('substring', [s('héllo'), i(2), i(3)], T.string()), 'éll'],
  ['trim', call('trim', [s('  x  ')], T.string()), 'x'],
  ['ltrim', call('ltrim', [s('  x  ')], T.string()), 'x  '],
  ['rtrim', call('rtrim', [s('  x  ')], T.string()), '  x'],
  ['char_length', call('char_length', [s('héllo')], T.int()), 5],
  ['coalesce', call('coalesce', [s(null), s('b')], T.string()), 'b'],
  ['nullif', call('nullif', [i(1), i(1)], T.int()), null],
  ['floor_to', u('floor_to', 'minute', [ts('2020-04-15T08:07:30.500')], TS), '2020-04-15 08:07:00.000'],
  ['floor_to', u('floor_to', 'day', [ts('2020-04-15T08:07:30.500')], TS), '2020-04-15 00:00:00.000'],
  ['ceil_to', u('ceil_to', 'minute', [ts('2020-04-15T08:07:30.500')], TS), '2020-04-15 08:08:00.000'],
  ['ceil_to', u('ceil_to', 'hour', [ts('2020-04-15T08:00:00')], TS), '2020-04-15 08:00:00.000'],
  ['extract', u('extract', 'year', [ts('2020-04-15T08:07:30')], T.bigint()), 2020],
  ['extract', u('extract', 'minute', [ts('2020-04-15T08:07:30')], T.bigint()), 7],
  ['timestampadd', u('timestampadd', 'hour', [i(2), ts('2020-04-15T08:07:30.500')], TS), '2020-04-15 10:07:30.500'],
  ['to_timestamp_ltz', call('to_timestamp_ltz', [lit(1586937600123, T.bigint(false)), i(3)], T.timestampLtz(3)), '2020-04-15 08:00:00.123'],
  ['json_value', call('json_value', [s('{"a":{"b":"x"}}'), s('$.a.b')], T.string()), 'x'],
  ['json_value', call('json_value', [s('{"a":{}}'), s('$.a.b')], T.string()), null],
];

test('the function table covers every IrFn', () => {
  assert.deepEqual(Object.keys(FUNCTIONS).sort(), [...IR_FNS].sort());
  assert.deepEqual([...new Set(CASES.map(([f]) => f))].sort(), [...IR_FNS].sort());
});

test('every function evaluates in ClickHouse to the hand-computed value', async () => {
  const noCols = (): string => {
    throw new Error('no columns here');
  };
  // Projections cast each computed column to its IR type (model.ts selectFrom); so does this test.
  const script = CASES.map(([, e]) => `SELECT CAST(${compileExpr(e, noCols)} AS ${chType(e.type)}) AS v;`).join('\n');
  const res = await runChdb(script);
  const got = res.map((r) => r.rows[0]!['v']);
  const mismatches = CASES.map(([f, , want], k) => ({ f, want, got: got[k], sql: res[k]!.statement })).filter((m) => m.got !== m.want);
  assert.deepEqual(mismatches, []);
});
