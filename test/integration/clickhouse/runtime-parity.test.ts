// DESIGN.md: "on the same input the ClickHouse result equals the runtime's". The same plan (the
// runtime tests' Bid plan over bids.ndjson) runs in the runtime and, as ClickHouse DDL, in chdb.
// The runtime's file source is bounded (its end closes every window); ClickHouse has no end of
// input, so one later bid moves its watermark past every window of the example instead.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { IrAggregate, IrWindow, PlanDoc } from '../../../src/plan/ir.ts';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { bidPlan, E, T, agg } from '../../fixtures/runtime/bid-plans.ts';
import { runPlan, sortRows } from '../../fixtures/runtime/run-helpers.ts';
import { span } from '../../fixtures/clickhouse/plan-builder.ts';
import { repoRoot } from '../../support/venv.ts';
import { runChdb } from '../../support/chdb.ts';
import { bids, expectedCase, insert, normalize } from './support.ts';

const everyAggregate = (c: (n: string) => ReturnType<typeof E.col>): IrAggregate[] => [
  agg.countStar('bids'),
  agg.count('items', c('item')),
  agg.countDistinct('distinct_items', c('item')),
  agg.sum('total', c('price'), T.decimal(38, 2)),
  agg.min('low', c('price')),
  agg.max('high', c('price')),
  { name: 'mean', fn: 'avg', arg: c('price'), type: T.decimal(38, 6) },
  { name: 'approx_items', fn: 'approx_count_distinct', arg: c('item'), type: T.bigint(false) },
  { name: 'first_item', fn: 'first_value', arg: c('item'), type: T.string() },
  { name: 'last_item', fn: 'last_value', arg: c('item'), type: T.string() },
];

async function clickhouseRows(plan: PlanDoc, windowOp: string): Promise<Record<string, unknown>[]> {
  const withView: PlanDoc = { ...plan, views: [...plan.views, { name: 'bid_windows', operator: windowOp, span }] };
  const out = emitClickHouse(withView, { sourceMode: 'insertable' });
  assert.equal(out.diagnostics.hasErrors, false, JSON.stringify(out.diagnostics.items));
  const cols = ['bidtime', 'price', 'item'];
  const res = await runChdb(
    [
      out.sql,
      insert('`bids`.`bid`', cols, bids),
      insert('`bids`.`bid`', cols, [{ bidtime: '2020-04-15 10:00:00.000', price: '0.00', item: 'end' }]),
      "SELECT * FROM `bids`.`bid_windows` WHERE window_start < '2020-04-15 10:00:00' ORDER BY window_start, window_end;",
    ].join('\n'),
  );
  return res.at(-1)!.rows;
}

for (const name of ['tumble_10m_sum', 'tumble_10m_offset_1m_sum', 'hop_5m_10m_sum', 'cumulate_2m_10m_sum', 'tumble_10m_every_aggregate']) {
  test(`${name}: ClickHouse and the runtime agree on the same plan and input`, async () => {
    const c = expectedCase(name);
    const plan = bidPlan({
      path: path.join(repoRoot, 'test/fixtures/windows/bids.ndjson'),
      window: c.window as IrWindow,
      aggregates: name === 'tumble_10m_every_aggregate' ? everyAggregate : undefined,
      late: 'drop',
    });
    const windowOp = plan.operators.find((o) => o.op === 'window_agg')!.id;
    const [runtime, clickhouse] = await Promise.all([runPlan(plan), clickhouseRows(plan, windowOp)]);
    assert.equal(runtime.exitCode, 0, runtime.stderr);
    const rt = sortRows(runtime.out, ['window_start', 'window_end']);
    assert.deepEqual(normalize(clickhouse), normalize(rt));
    // And both equal the shared expectation.
    assert.deepEqual(normalize(clickhouse), normalize(c.rows));
  });
}
