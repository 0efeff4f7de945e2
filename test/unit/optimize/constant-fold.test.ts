// Constant folding: literal arithmetic (exact DECIMAL, truncating integer division), boolean
// identities with SQL three-valued logic, CASE/COALESCE/CAST, and TRUE filters removed from the
// plan. Expected values are worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldConstants, foldExpr } from '../../../src/plan/optimize/constant-fold.ts';
import type { IrExpr, SqlType } from '../../../src/plan/ir.ts';
import { E, PlanBuilder, T, column } from '../../fixtures/plans/builder.ts';
import { ALL_FIXTURES } from '../../fixtures/plans/index.ts';
import { outputSchemas, planProblems } from '../../fixtures/plans/validate.ts';

const dec = (p: number, s: number, nullable = false) => T.decimal(p, s, nullable);
const call = (fn: Parameters<typeof E.call>[0], args: IrExpr[], type: SqlType) => E.call(fn, args, type);
const x = E.col('x', T.boolean());

test('DECIMAL arithmetic is exact, as a string at the result scale', () => {
  // 0.1 + 0.2 is 0.30000000000000004 in binary floating point; exactly 0.30 here.
  assert.deepEqual(foldExpr(call('add', [E.dec('0.10', 3, 2), E.dec('0.20', 3, 2)], dec(4, 2))), E.lit('0.30', dec(4, 2)));
  assert.deepEqual(foldExpr(call('mul', [E.dec('19.99', 4, 2), E.dec('3', 1, 0)], dec(6, 2))), E.lit('59.97', dec(6, 2)));
  assert.deepEqual(foldExpr(call('sub', [E.dec('1.00', 3, 2), E.dec('2.50', 3, 2)], dec(4, 2))), E.lit('-1.50', dec(4, 2)));
  // 2 / 3 at scale 4 rounds half up: 0.6667; 1 / 8 = 0.125 → 0.13 at scale 2.
  assert.deepEqual(foldExpr(call('div', [E.dec('2', 1, 0), E.dec('3', 1, 0)], dec(10, 4))), E.lit('0.6667', dec(10, 4)));
  assert.deepEqual(foldExpr(call('div', [E.dec('1', 1, 0), E.dec('8', 1, 0)], dec(10, 2))), E.lit('0.13', dec(10, 2)));
  // A very long exact sum no double can hold.
  const big = '12345678901234567890123456.78';
  assert.deepEqual(foldExpr(call('add', [E.dec(big, 28, 2), E.dec('0.01', 3, 2)], dec(38, 2))), E.lit('12345678901234567890123456.79', dec(38, 2)));
  // An INT operand in DECIMAL arithmetic.
  assert.deepEqual(foldExpr(call('add', [E.int(1), E.dec('0.5', 2, 1)], dec(12, 1))), E.lit('1.5', dec(12, 1)));
});

test('DECIMAL results that overflow the precision are left for the runtime', () => {
  const e = call('mul', [E.dec('999.99', 5, 2), E.dec('999.99', 5, 2)], dec(5, 2));
  assert.deepEqual(foldExpr(e), e);
});

test('integer arithmetic: truncating division, overflow and division by zero not folded', () => {
  assert.deepEqual(foldExpr(call('div', [E.int(7), E.int(2)], T.int(false))), E.lit(3, T.int(false)));
  assert.deepEqual(foldExpr(call('div', [E.int(-7), E.int(2)], T.int(false))), E.lit(-3, T.int(false)));
  assert.deepEqual(foldExpr(call('mod', [E.int(-7), E.int(3)], T.int(false))), E.lit(-1, T.int(false)));
  assert.deepEqual(foldExpr(call('mul', [E.int(60), E.int(1000)], T.bigint(false))), E.lit(60000, T.bigint(false)));
  const overflow = call('add', [E.int(2147483647), E.int(1)], T.int(false));
  assert.deepEqual(foldExpr(overflow), overflow);
  const byZero = call('div', [E.int(1), E.int(0)], T.int(false));
  assert.deepEqual(foldExpr(byZero), byZero);
  assert.deepEqual(foldExpr(call('neg', [E.int(5)], T.int(false))), E.lit(-5, T.int(false)));
});

test('DOUBLE arithmetic folds as binary floating point', () => {
  assert.deepEqual(foldExpr(call('add', [E.lit(0.5, T.double(false)), E.lit(0.25, T.double(false))], T.double(false))), E.lit(0.75, T.double(false)));
  const inf = call('div', [E.lit(1, T.double(false)), E.lit(0, T.double(false))], T.double(false));
  assert.deepEqual(foldExpr(inf), inf);
});

test('NULL propagates through arithmetic and comparison', () => {
  assert.deepEqual(foldExpr(call('add', [E.int(1), E.nul(T.int())], T.int())), E.lit(null, T.int()));
  assert.deepEqual(foldExpr(E.cmp('eq', E.nul(T.int()), E.int(1))), E.lit(null, T.boolean(true)));
  // Whatever a column holds, comparing it with NULL or adding NULL gives NULL.
  assert.deepEqual(foldExpr(E.cmp('eq', E.col('s', T.string()), E.nul(T.string()))), E.lit(null, T.boolean(true)));
  assert.deepEqual(foldExpr(call('add', [E.col('n', T.int()), E.nul(T.int())], T.int())), E.lit(null, T.int()));
  // IS NULL and COALESCE are not strict.
  const isNull = call('is_null', [E.col('s', T.string())], T.boolean(false));
  assert.deepEqual(foldExpr(isNull), isNull);
});

test('comparisons across numeric types and of strings', () => {
  assert.deepEqual(foldExpr(E.cmp('eq', E.dec('1.50', 3, 2), E.lit(1.5, T.double(false)))), E.bool(true));
  assert.deepEqual(foldExpr(E.cmp('lt', E.dec('0.1', 2, 1), E.dec('0.10', 3, 2))), E.bool(false));
  assert.deepEqual(foldExpr(E.cmp('ge', E.int(3), E.bigint(3))), E.bool(true));
  assert.deepEqual(foldExpr(E.cmp('lt', E.str('apple'), E.str('banana'))), E.bool(true));
  assert.deepEqual(foldExpr(E.cmp('ne', E.str('a'), E.str('a'))), E.bool(false));
});

test('x AND TRUE is x; x AND FALSE is FALSE; x OR TRUE is TRUE; x OR FALSE is x', () => {
  assert.deepEqual(foldExpr(E.and(x, E.bool(true))), x);
  assert.deepEqual(foldExpr(E.and(E.bool(true), x)), x);
  assert.deepEqual(foldExpr(E.and(x, E.bool(false))), E.lit(false, T.boolean()));
  assert.deepEqual(foldExpr(E.or(x, E.bool(true))), E.lit(true, T.boolean()));
  assert.deepEqual(foldExpr(E.or(E.bool(false), x)), x);
});

test('three-valued logic: NULL AND FALSE is FALSE, NULL AND TRUE is NULL, NULL OR TRUE is TRUE', () => {
  const n = E.nul(T.boolean());
  assert.equal((foldExpr(E.and(n, E.bool(false))) as { value: unknown }).value, false);
  assert.equal((foldExpr(E.and(n, E.bool(true))) as { value: unknown }).value, null);
  assert.equal((foldExpr(E.or(n, E.bool(true))) as { value: unknown }).value, true);
  assert.equal((foldExpr(E.or(n, E.bool(false))) as { value: unknown }).value, null);
  assert.equal((foldExpr(call('not', [n], T.boolean())) as { value: unknown }).value, null);
});

test('a replacement keeps the original type: NOT NULL column under a nullable AND is cast', () => {
  const nn = E.col('flag', T.boolean(false));
  const e = E.and(nn, E.nul(T.boolean()));
  // flag AND NULL cannot fold (NULL when flag is TRUE, FALSE when FALSE).
  assert.deepEqual(foldExpr(e), e);
  const andTrue = { ...E.and(nn, E.bool(true)), type: T.boolean(true) };
  assert.deepEqual(foldExpr(andTrue), { kind: 'cast', operand: nn, type: T.boolean(true) });
});

test('folding reaches inside expressions: amount > 2 * 50', () => {
  const amount = E.col('amount', dec(12, 2, true));
  const e = E.cmp('gt', amount, call('mul', [E.int(2), E.int(50)], T.int(false)));
  assert.deepEqual(foldExpr(e), E.cmp('gt', amount, E.lit(100, T.int(false))));
});

test('IN with literals follows SQL NULL semantics', () => {
  const inList = (v: IrExpr, ...items: IrExpr[]) => call('in', [v, ...items], T.boolean());
  assert.equal((foldExpr(inList(E.int(2), E.int(1), E.int(2))) as { value: unknown }).value, true);
  assert.equal((foldExpr(inList(E.int(3), E.int(1), E.nul(T.int()))) as { value: unknown }).value, null);
  assert.equal((foldExpr(inList(E.int(3), E.int(1), E.int(2))) as { value: unknown }).value, false);
  assert.equal((foldExpr(call('not_in', [E.int(3), E.int(1)], T.boolean())) as { value: unknown }).value, true);
});

test('CASE with literal conditions, COALESCE with literal NULLs, CAST of numeric literals', () => {
  const a = E.col('a', T.string());
  const c = { kind: 'case', whens: [{ when: E.bool(false), then: E.str('no') }, { when: E.bool(true), then: a }], else: E.str('z'), type: T.string() } as IrExpr;
  assert.deepEqual(foldExpr(c), a);
  const none = { kind: 'case', whens: [{ when: E.nul(T.boolean()), then: E.str('no') }], else: null, type: T.string() } as IrExpr;
  assert.deepEqual(foldExpr(none), E.lit(null, T.string()));
  assert.deepEqual(foldExpr(call('coalesce', [E.nul(T.string()), a, E.str('d')], T.string())), call('coalesce', [a, E.str('d')], T.string()));
  assert.deepEqual(foldExpr(call('coalesce', [E.nul(T.string()), E.str('d'), a], T.string(false))), E.lit('d', T.string(false)));
  assert.deepEqual(foldExpr({ kind: 'cast', operand: E.int(3), type: dec(5, 2) }), E.lit('3.00', dec(5, 2)));
  const frac = { kind: 'cast', operand: E.dec('3.7', 2, 1), type: T.int(false) } as IrExpr;
  assert.deepEqual(foldExpr(frac), frac);
  assert.deepEqual(foldExpr(call('concat', [E.str('a'), E.str('b')], T.string(false))), E.lit('ab', T.string(false)));
});

// ---------------------------------------------------------------- the pass over plans

function plan(folded: boolean) {
  const b = new PlanBuilder('fold');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('k', T.string()), column('amount', dec(12, 2, true))], options: { topic: 'ev' }, line: 1 });
  const s = b.scan('ev', 's');
  // WHERE 1 < 2 (always true) disappears; the project's 2 * 50 becomes 100.
  const f1 = folded ? s : b.filter(s, () => E.cmp('lt', E.int(1), E.int(2)), 'always', 2);
  const f2 = b.filter(f1, (c) => E.and(E.cmp('gt', c('amount'), E.dec('0', 1, 0)), E.bool(true)), 'where', 3);
  const hundred = folded ? E.lit(100, T.int(false)) : call('mul', [E.int(2), E.int(50)], T.int(false));
  const p = b.project(f2, (c) => [['k', c('k')], ['limit', hundred]], 'sel', 4);
  b.view('v', p);
  b.sink({ name: 'out', connector: 'stdout', input: p, line: 5 });
  return b.build();
}

test('the pass: TRUE filters are removed, consumers rewired, other expressions folded', () => {
  const before = plan(false);
  const expected = plan(true);
  // The WHERE keeps its own predicate, `amount > 0 AND TRUE` → `amount > 0`.
  const where = expected.operators.find((o) => o.id === 'where')!;
  if (where.op !== 'filter' || where.predicate.kind !== 'call') throw new Error('fixture');
  where.predicate = where.predicate.args[0]!;
  assert.deepEqual(foldConstants(before), expected);
});

test('the pass keeps a filter that folds to FALSE (the lint reports it)', () => {
  const b = new PlanBuilder('never');
  b.source({ name: 'ev', connector: 'kafka', columns: [column('k', T.string())], options: { topic: 'ev' } });
  const f = b.filter(b.scan('ev'), () => E.cmp('eq', E.int(1), E.int(2)), 'never');
  b.sink({ name: 'out', connector: 'stdout', input: f });
  const out = foldConstants(b.build());
  const never = out.operators.find((o) => o.id === 'never')!;
  assert.ok(never.op === 'filter' && never.predicate.kind === 'lit' && never.predicate.value === false);
});

test('the pass changes no sink or view output schema, and leaves valid plans', () => {
  for (const [name, make] of [...Object.entries(ALL_FIXTURES), ['fold', () => plan(false)] as const]) {
    const before = make();
    const after = foldConstants(before);
    assert.deepEqual(outputSchemas(after), outputSchemas(before), name);
    assert.deepEqual(planProblems(after), [], name);
  }
});
