// Expression typing: arithmetic and DECIMAL rules, implicit casts, BETWEEN/IN/LIKE/CASE/
// COALESCE/CAST, time arithmetic, functions, and the errors each can raise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import type { IrExpr } from '../../../src/plan/ir.ts';
import { at, check, diag, kafkaSource, op } from './helpers.ts';

const SRC = kafkaSource(
  't',
  'i INT NOT NULL, b BIGINT, d DECIMAL(12, 2), d2 DECIMAL(5, 3), f DOUBLE, s STRING, j STRING, flag BOOLEAN, ms BIGINT, ts TIMESTAMP(3)',
);
const col = (name: string, type: IrExpr['type']): IrExpr => ({ kind: 'col', input: 0, name, type });

async function typesOf(select: string): Promise<Record<string, IrExpr['type']>> {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT ${select} FROM t;`);
  assert.deepEqual(c.codes, [], `unexpected diagnostics for ${select}`);
  return Object.fromEntries(op(c.plan, 'v/project').schema.map((x) => [x.name, x.type]));
}

async function exprOf(select: string): Promise<IrExpr> {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT ${select} AS x FROM t;`);
  assert.deepEqual(c.codes, []);
  const p = op(c.plan, 'v/project');
  assert.ok(p.op === 'project');
  return p.exprs[0]!.expr;
}

async function errorsOf(select: string, where = ''): Promise<string[]> {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT ${select} FROM t${where ? ` WHERE ${where}` : ''};`);
  return c.errors;
}

test('arithmetic result types follow Flink', async () => {
  assert.deepEqual(await typesOf('d * d2 AS x, d / d2 AS y, i + d AS z, i + b AS w, i / i AS q, f + d AS r'), {
    x: T.decimal(18, 5),
    y: T.decimal(21, 8),
    z: T.decimal(13, 2),
    w: T.bigint(true),
    q: T.int(false),
    r: T.double(true),
  });
});

test('mixed numeric operands get explicit casts; literals are re-typed', async () => {
  assert.deepEqual(await exprOf('i + d'), {
    kind: 'call', fn: 'add', type: T.decimal(13, 2),
    args: [{ kind: 'cast', operand: col('i', T.int(false)), type: T.decimal(10, 0, false) }, col('d', T.decimal(12, 2))],
  });
  assert.deepEqual(await exprOf('b + 1'), { kind: 'call', fn: 'add', type: T.bigint(), args: [col('b', T.bigint()), { kind: 'lit', value: 1, type: T.bigint(false) }] });
});

test('BETWEEN becomes and(ge, le)', async () => {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT i FROM t WHERE i BETWEEN 1 AND 10;`);
  const f = op(c.plan, 'v/filter');
  assert.ok(f.op === 'filter');
  const lit = (v: number): IrExpr => ({ kind: 'lit', value: v, type: T.int(false) });
  assert.deepEqual(f.predicate, {
    kind: 'call', fn: 'and', type: T.boolean(false),
    args: [
      { kind: 'call', fn: 'ge', args: [col('i', T.int(false)), lit(1)], type: T.boolean(false) },
      { kind: 'call', fn: 'le', args: [col('i', T.int(false)), lit(10)], type: T.boolean(false) },
    ],
  });
});

test('CASE and COALESCE unify their branches', async () => {
  assert.deepEqual(await typesOf('CASE WHEN flag THEN i ELSE d END AS x, CASE WHEN flag THEN 1 END AS y, COALESCE(b, 0) AS z, NULLIF(i, 0) AS n'), {
    x: T.decimal(12, 2),
    y: T.int(true),
    z: T.bigint(false),
    n: T.int(true),
  });
  assert.deepEqual(await errorsOf("CASE WHEN flag THEN s ELSE i END"), ['incompatible-types']);
});

test('strings, LIKE, concatenation and string functions', async () => {
  assert.deepEqual(await typesOf("s || 'x' AS c, UPPER(s) AS u, CHAR_LENGTH(s) AS n, SUBSTRING(s, 2, 3) AS sub, TRIM(s) AS tr, s LIKE 'a%' AS l"), {
    c: T.string(true),
    u: T.string(true),
    n: T.int(true),
    sub: T.string(true),
    tr: T.string(true),
    l: T.boolean(true),
  });
  assert.deepEqual(await errorsOf("i LIKE 'a%'"), ['expected-type']);
  assert.deepEqual(await errorsOf('s = 1'), ['type-mismatch']);
});

test('time arithmetic and functions', async () => {
  assert.deepEqual(await typesOf("ts - INTERVAL '1' HOUR AS a, EXTRACT(HOUR FROM ts) AS h, FLOOR(ts TO MINUTE) AS m, TO_TIMESTAMP_LTZ(ms, 3) AS l, JSON_VALUE(j, '$.a') AS jv"), {
    a: T.timestamp(3),
    h: T.bigint(true),
    m: T.timestamp(3),
    l: T.timestampLtz(3),
    jv: T.string(true),
  });
  assert.deepEqual(await exprOf('FLOOR(ts TO MINUTE)'), { kind: 'call', fn: 'floor_to', args: [col('ts', T.timestamp(3))], type: T.timestamp(3), unit: 'minute' });
  assert.deepEqual(await errorsOf('ts + 1'), ['type-mismatch']);
});

test('TIMESTAMP literals are epoch milliseconds', async () => {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT i FROM t WHERE ts > TIMESTAMP '2024-01-01 00:00:01.5';`);
  const f = op(c.plan, 'v/filter');
  assert.ok(f.op === 'filter' && f.predicate.kind === 'call');
  // 2024-01-01T00:00:00Z is 1704067200000 ms; + 1.5 s.
  assert.deepEqual(f.predicate.args[1], { kind: 'lit', value: 1_704_067_201_500, type: T.timestamp(1, false) });
  assert.deepEqual(await errorsOf("TIMESTAMP '2024-02-30 00:00:00' AS x"), ['invalid-literal']);
});

test('IN lists convert to a common type', async () => {
  assert.deepEqual(await exprOf('d IN (1, 2.5)'), {
    kind: 'call', fn: 'in', type: T.boolean(true),
    args: [col('d', T.decimal(12, 2)), { kind: 'lit', value: '1', type: T.decimal(12, 2, false) }, { kind: 'lit', value: '2.5', type: T.decimal(12, 2, false) }],
  });
  assert.deepEqual(await errorsOf("s IN ('a', 1)"), ['incompatible-types']);
});

test('CAST validity', async () => {
  assert.deepEqual(await typesOf('CAST(s AS INT) AS x, CAST(i AS STRING) AS y'), { x: T.int(true), y: T.string(false) });
  assert.deepEqual(await errorsOf('CAST(flag AS DATE)'), ['invalid-cast']);
});

test('unknown functions suggest the closest; wrong arity is reported', async () => {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT UPPPER(s) FROM t;`);
  assert.deepEqual(at(c, 'unknown-function'), ['5:25']);
  assert.equal(diag(c, 'unknown-function').help, "did you mean 'UPPER'?");
  assert.deepEqual(await errorsOf('LOWER(s, s)'), ['wrong-arity']);
});

test('aggregates are not allowed in WHERE and cannot nest', async () => {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT i FROM t WHERE SUM(i) > 0;`);
  assert.deepEqual(at(c, 'aggregate-not-allowed'), ['5:40']);
  const n = await check(`${SRC}CREATE VIEW v WITH (state_ttl = '1 h') AS SELECT SUM(COUNT(*)) FROM t GROUP BY i EMIT CHANGES;`);
  assert.deepEqual(n.errors, ['nested-aggregate']);
});

test('WHERE must be BOOLEAN; AND needs BOOLEAN operands', async () => {
  assert.deepEqual(await errorsOf('i', 'i + 1'), ['expected-type']);
  assert.deepEqual(await errorsOf('i', 'flag AND s'), ['expected-type']);
});
