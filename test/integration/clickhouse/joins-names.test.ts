// Joins (interval and temporal) and hostile identifiers, run in chdb on the insertable variant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { T } from '../../../src/types/sql-type.ts';
import type { IrOperator, PlanDoc } from '../../../src/plan/ir.ts';
import { call, col, filter, kafkaSource, lit, plan, project, ref, scan, span } from '../../fixtures/clickhouse/plan-builder.ts';
import { runChdb } from '../../support/chdb.ts';
import { insert, normalize } from './support.ts';

const orders = kafkaSource('orders', [col('id', T.bigint(false)), col('amount', T.decimal(12, 2)), col('ts', T.timestamp(3))]);
const shipments = kafkaSource('shipments', [col('order_id', T.bigint(false)), col('ts', T.timestamp(3))]);

function intervalJoinPlan(): PlanDoc {
  const out = [col('id', T.bigint(false)), col('amount', T.decimal(12, 2)), col('shipped_at', T.timestamp(3))];
  const join: IrOperator = {
    id: 'j',
    op: 'interval_join',
    inputs: ['so', 'ss'],
    schema: out,
    changelog: 'append',
    upsertKey: null,
    stateBound: { kind: 'interval', retainMs: 3_600_000 },
    timeColumn: null,
    span,
    joinType: 'inner',
    leftKeys: [ref('id', T.bigint(false), 0)],
    rightKeys: [ref('order_id', T.bigint(false), 1)],
    leftTime: 'ts',
    rightTime: 'ts',
    // s.ts BETWEEN o.ts AND o.ts + 1 h  ⇔  o.ts - s.ts in [-1 h, 0]
    lowerMs: -3_600_000,
    upperMs: 0,
    residual: null,
    allowedLatenessMs: 0,
    late: { kind: 'drop' },
    outputMap: [
      { name: 'id', input: 0, column: 'id' },
      { name: 'amount', input: 0, column: 'amount' },
      { name: 'shipped_at', input: 1, column: 'ts' },
    ],
  };
  return plan('shop', { sources: [orders, shipments], operators: [scan('so', orders), scan('ss', shipments), join], views: [{ name: 'shipped', operator: 'j', span }] });
}

test('interval join: matches within the bound when the right row is already there; warns that only the left side fires', async () => {
  const out = emitClickHouse(intervalJoinPlan(), { sourceMode: 'insertable' });
  assert.ok(out.diagnostics.items.some((d) => d.code === 'clickhouse-mv-join-left-only' && d.message.includes("'orders'")));
  const res = await runChdb(
    [
      out.sql,
      insert('`shop`.`shipments`', ['order_id', 'ts'], [
        { order_id: 1, ts: '2020-04-15 08:30:00.000' }, // within 1 h after order 1
        { order_id: 2, ts: '2020-04-15 10:00:00.000' }, // 2 h after order 2: outside the bound
      ]),
      insert('`shop`.`orders`', ['id', 'amount', 'ts'], [
        { id: 1, amount: '9.99', ts: '2020-04-15 08:00:00.000' },
        { id: 2, amount: '5.00', ts: '2020-04-15 08:00:00.000' },
        { id: 3, amount: '1.00', ts: '2020-04-15 08:00:00.000' },
      ]),
      // Arrives after its order: an MV over a join never sees it (the documented difference).
      insert('`shop`.`shipments`', ['order_id', 'ts'], [{ order_id: 3, ts: '2020-04-15 08:10:00.000' }]),
      'SELECT * FROM `shop`.`shipped` ORDER BY id;',
    ].join('\n'),
  );
  assert.deepEqual(normalize(res.at(-1)!.rows), [{ id: '1', amount: '9.99', shipped_at: '2020-04-15 08:30:00.000' }]);
});

test('a column named with quotes, backticks and backslashes cannot break the DDL', async () => {
  const evil = 'we"ird`na\\me\'; DROP TABLE x; --';
  const src = kafkaSource('we`ird src', [col(evil, T.string()), col('n', T.int())]);
  const p = plan('odd`db', {
    sources: [src],
    operators: [
      scan('s', src),
      filter('f', 's', src.columns, call('gt', [ref('n', T.int()), lit(1, T.int(false))], T.boolean())),
      project('p', 'f', [{ name: `${evil} out`, expr: call('upper', [ref(evil, T.string())], T.string()) }]),
    ],
    views: [{ name: "v'iew", operator: 'p', span }],
  });
  const out = emitClickHouse(p, { sourceMode: 'insertable' });
  const q = (n: string): string => '`' + n.replace(/\\/g, '\\\\').replace(/`/g, '``') + '`';
  const res = await runChdb(
    [
      out.sql,
      insert(`${q('odd`db')}.${q('we`ird src')}`, [evil, 'n'], [{ [evil]: 'a`b"c\'d', n: 2 }, { [evil]: 'no', n: 1 }]),
      `SELECT * FROM ${q('odd`db')}.${q("v'iew")};`,
      out.teardown,
    ].join('\n'),
  );
  const sel = res.find((r) => r.statement.startsWith("SELECT"));
  assert.ok(sel, res.map((r) => r.statement).join("\n---\n"));
  const rows = sel.rows;
  assert.deepEqual(rows, [{ [`${evil} out`]: 'A`B"C\'D' }]);
});
