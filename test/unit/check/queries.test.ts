// Query shapes beyond a single SELECT: UNION ALL, subqueries, windows over a windowed view,
// and the absence of follow-on errors after a broken statement.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import { check, kafkaSource, op } from './helpers.ts';

const a = kafkaSource('a', 'k STRING NOT NULL, n INT NOT NULL, ts TIMESTAMP(3) NOT NULL');
const b = kafkaSource('b', 'k STRING NOT NULL, n BIGINT, ts TIMESTAMP(3) NOT NULL');

test('UNION ALL unifies column types position by position and converts the inputs that differ', async () => {
  const c = await check(`${a}${b}CREATE VIEW u AS SELECT k, n FROM a UNION ALL SELECT k, n FROM b;`);
  assert.deepEqual(c.codes, []);
  const u = op(c.plan, 'u/union');
  assert.deepEqual(u.schema.map((x) => [x.name, x.type]), [['k', T.string(false)], ['n', T.bigint(true)]]);
  // a's INT n is cast to BIGINT in an extra projection; b's input already matches.
  assert.deepEqual(u.inputs, ['u/u1/cast', 'u/u2/project']);
  const conv = op(c.plan, 'u/u1/cast');
  assert.ok(conv.op === 'project');
  assert.deepEqual(conv.exprs[1]!.expr, { kind: 'cast', operand: { kind: 'col', input: 0, name: 'n', type: T.int(false) }, type: T.bigint(false) });
});

test('UNION ALL inputs must have the same width', async () => {
  const c = await check(`${a}${b}CREATE VIEW u AS SELECT k, n FROM a UNION ALL SELECT k FROM b;`);
  assert.deepEqual(c.errors, ['union-arity']);
});

test('a subquery in FROM is planned under the alias', async () => {
  const c = await check(`${a}CREATE VIEW v AS SELECT s.k2 FROM (SELECT UPPER(k) AS k2, n FROM a WHERE n > 1) AS s WHERE s.n < 10;`);
  assert.deepEqual(c.codes, []);
  assert.deepEqual(c.plan!.operators.map((o) => o.id), ['v/s/scan', 'v/s/filter', 'v/s/project', 'v/filter', 'v/project']);
});

test('a window over a windowed view runs on its window_time', async () => {
  const c = await check(`${a}CREATE VIEW m AS SELECT k, window_start, window_time, COUNT(*) AS c FROM TUMBLE(a, ts, INTERVAL '1' MINUTE) GROUP BY k, window_start, window_end;
CREATE VIEW h AS SELECT k, window_start, SUM(c) AS c FROM TUMBLE(m, window_time, INTERVAL '1' HOUR) GROUP BY k, window_start, window_end;`);
  assert.deepEqual(c.codes, []);
  const w = op(c.plan, 'h/window');
  assert.ok(w.op === 'window_agg');
  assert.deepEqual(w.inputs, ['m/project']);
  assert.equal(w.windowTimeColumn, 'window_time');
  assert.deepEqual(w.aggregates[0]!.type, T.bigint(false));
  // m's own window_start is hidden by the new window's: h groups by the hourly window_start.
  assert.deepEqual(w.groupKeys.map((g) => g.name), ['k']);
  assert.deepEqual(w.windowColumns, ['window_start', 'window_end']);
});

test('a statement with a syntax error is not checked further, and neither are its readers', async () => {
  const { parsePipeSql } = await import('../../../src/syntax/sql/index.ts');
  const { DiagnosticBag } = await import('../../../src/diagnostics/bag.ts');
  const { checkPipeline } = await import('../../../src/check/index.ts');
  const { stubSchemas } = await import('./helpers.ts');
  const bag = new DiagnosticBag();
  const text = `${a}CREATE VIEW v AS SELECT k, window_start, COUNT(*) AS c FROM TUMBLE(a, ts, INTERVAL '1 MINUTE)) GROUP BY k, window_start, window_end;`;
  const ast = parsePipeSql(text, { file: 't.pipe.sql', env: { get: () => undefined }, diagnostics: bag });
  await checkPipeline(ast, { diagnostics: bag, schemas: stubSchemas([]), baseDir: '.', relFile: 't.pipe.sql' });
  assert.ok(bag.items.length > 0);
  assert.ok(bag.items.every((d) => d.code.startsWith('syntax-')), bag.items.map((d) => d.code).join(', '));
});

test('a broken WATERMARK does not also fail every window over the source', async () => {
  const c = await check(`CREATE SOURCE s (k STRING, t STRING, WATERMARK FOR t AS t) WITH (connector = 'kafka', topic = 'x');
CREATE VIEW v AS SELECT COUNT(*) AS c FROM TUMBLE(s, t, INTERVAL '1' MINUTE) GROUP BY window_start, window_end;`);
  assert.deepEqual(c.errors, ['watermark-column-type']);
});

test('a bare NULL or an INTERVAL cannot be an output column', async () => {
  const c = await check(`${a}CREATE VIEW v AS SELECT NULL AS x, INTERVAL '1' HOUR AS y, CAST(NULL AS INT) AS z FROM a;`);
  assert.deepEqual(c.errors, ['untyped-output', 'untyped-output']);
});

test('late events go to a sink of their own, not to a sink with an input', async () => {
  const c = await check(`${a}CREATE SINK out FROM a WITH (connector = 'stdout');
CREATE VIEW v AS SELECT k, window_start, COUNT(*) AS c FROM TUMBLE(a, ts, INTERVAL '1' MINUTE)
GROUP BY k, window_start, window_end ON LATE TO out;`);
  assert.deepEqual(c.errors, ['late-sink-has-input']);
});

test('errors after a bad window or an unbounded join are still reported; failed views leave no operators', async () => {
  const w = await check(`${a}CREATE VIEW v AS SELECT kk, COUNT(*) AS c FROM HOP(a, ts, INTERVAL '7' MINUTE, INTERVAL '10' MINUTE) GROUP BY k, window_start, window_end;`);
  assert.deepEqual(w.errors, ['unknown-column', 'window-arg-invalid']); // in source order
  assert.deepEqual(w.plan!.operators, []);
  const j = await check(`${a}${b}CREATE VIEW v AS SELECT a.k, b.nn FROM a JOIN b ON a.k = b.k;`);
  assert.deepEqual(j.errors, ['unknown-column', 'unbounded-join']);
  assert.deepEqual(j.plan!.operators, []);
  assert.deepEqual(j.plan!.views, []);
});
