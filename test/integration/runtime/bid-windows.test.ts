// The Flink documentation's Bid examples (TUMBLE, TUMBLE with offset, HOP, CUMULATE, every
// aggregate, filter/project, SESSION) reproduced by the runtime from NDJSON, in order and with
// out-of-order arrivals within the watermark delay. Expected rows come from the shared
// fixture test/fixtures/windows/bids-expected.json (documented or worked out by hand).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { IrAggregate, IrWindow } from '../../../src/plan/ir.ts';
import { bidPlan, E, T, agg, MIN } from '../../fixtures/runtime/bid-plans.ts';
import { PlanBuilder, column } from '../../fixtures/plans/builder.ts';
import { readNdjson, runPlan, sortRows, tempDir, writeNdjson } from '../../fixtures/runtime/run-helpers.ts';

const FIXTURE = path.resolve('test/fixtures/windows/bids.ndjson');
const expected = JSON.parse(readFileSync('test/fixtures/windows/bids-expected.json', 'utf8')) as {
  cases: { name: string; window?: IrWindow; rows: Record<string, unknown>[] }[];
};
const byName = (n: string) => expected.cases.find((c) => c.name === n)!;

/** The fixture rows in an out-of-order arrival order (each at most 4 minutes behind the max). */
function shuffledCopy(): string {
  const rows = readNdjson(FIXTURE);
  const order = [1, 0, 3, 2, 5, 4];
  const file = path.join(tempDir(), 'bids-shuffled.ndjson');
  writeNdjson(file, order.map((i) => rows[i]));
  return file;
}

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

for (const name of ['tumble_10m_sum', 'tumble_10m_offset_1m_sum', 'hop_5m_10m_sum', 'cumulate_2m_10m_sum', 'tumble_10m_every_aggregate']) {
  const c = byName(name);
  for (const arrival of ['in order', 'out of order'] as const) {
    test(`Bid ${name} (${arrival}) equals the documented result`, async () => {
      const file = arrival === 'in order' ? FIXTURE : shuffledCopy();
      const plan = bidPlan({
        path: file,
        window: c.window!,
        delayMs: 5 * MIN,
        aggregates: name === 'tumble_10m_every_aggregate' ? everyAggregate : undefined,
      });
      const r = await runPlan(plan);
      assert.equal(r.exitCode, 0, r.stderr);
      let want = c.rows;
      if (name === 'tumble_10m_every_aggregate' && arrival === 'out of order') {
        // FIRST_VALUE / LAST_VALUE follow arrival order: the shuffled file starts with A, B and ends with F/E.
        want = want.map((row, i) => ({ ...row, first_item: i === 0 ? 'A' : 'B', last_item: i === 0 ? 'D' : 'E' }));
      }
      assert.deepEqual(sortRows(r.out, ['window_start', 'window_end']), want);
    });
  }
}

test('Bid filter and project: price * 2 keeps scale 2 (exact decimals)', async () => {
  const b = new PlanBuilder('bids_fp');
  b.source({
    name: 'bid',
    connector: 'file',
    format: 'ndjson',
    columns: [column('bidtime', T.timestamp(3)), column('price', T.decimal(10, 2)), column('item', T.string())],
    watermark: { column: 'bidtime', delayMs: 1000, idleTimeoutMs: null },
    options: { path: FIXTURE, format: 'ndjson' },
  });
  const scan = b.scan('bid');
  const f = b.filter(scan, (c) => E.cmp('gt', c('price'), E.int(2)));
  const p = b.project(f, (c) => [
    ['item', c('item')],
    ['double_price', E.call('mul', [c('price'), E.int(2)], T.decimal(21, 2))],
  ]);
  b.sink({ name: 'out', connector: 'file', input: p, options: { path: 'out.ndjson' }, file: { path: 'out.ndjson', format: 'ndjson' } });
  const r = await runPlan(b.build());
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(sortRows(r.out, ['item']), byName('filter_project').rows);
});

test('Bid SESSION (PARTITION BY supplier_id, gap 2 min) equals the documented result', async () => {
  const plan = bidPlan({
    path: path.resolve('test/fixtures/runtime/bids-supplier.ndjson'),
    window: { kind: 'session', gapMs: 2 * MIN, partitionBy: ['supplier_id'] },
    keys: ['supplier_id'],
    withSupplier: true,
    delayMs: 5 * MIN,
  });
  const r = await runPlan(plan);
  assert.equal(r.exitCode, 0, r.stderr);
  // Flink docs (window aggregation, SESSION): touching sessions merge ([08:05,08:07) + [08:07,08:09)).
  assert.deepEqual(sortRows(r.out, ['window_start']), [
    { supplier_id: 'supplier1', window_start: '2020-04-15 08:05:00.000', window_end: '2020-04-15 08:09:00.000', price: '6.00' },
    { supplier_id: 'supplier2', window_start: '2020-04-15 08:09:00.000', window_end: '2020-04-15 08:13:00.000', price: '8.00' },
    { supplier_id: 'supplier1', window_start: '2020-04-15 08:13:00.000', window_end: '2020-04-15 08:15:00.000', price: '1.00' },
    { supplier_id: 'supplier2', window_start: '2020-04-15 08:17:00.000', window_end: '2020-04-15 08:19:00.000', price: '6.00' },
  ]);
});

test('stdout table output of the Bid TUMBLE example', async () => {
  const plan = bidPlan({ path: FIXTURE, window: { kind: 'tumble', sizeMs: 10 * MIN, offsetMs: 0 }, sinkConnector: 'stdout', stdoutFormat: 'table' });
  const r = await runPlan(plan);
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      '+-------------------------+-------------------------+----------------------+',
      '| window_start            | window_end              | price                |',
      '+-------------------------+-------------------------+----------------------+',
      '| 2020-04-15 08:00:00.000 | 2020-04-15 08:10:00.000 |                11.00 |',
      '| 2020-04-15 08:10:00.000 | 2020-04-15 08:20:00.000 |                10.00 |',
      '',
    ].join('\n'),
  );
});

test('windows are emitted in window-end order as the watermark passes (HOP)', async () => {
  const plan = bidPlan({ path: FIXTURE, window: { kind: 'hop', slideMs: 5 * MIN, sizeMs: 10 * MIN }, delayMs: 0, sinkConnector: 'stdout' });
  const r = await runPlan(plan);
  const ends = r.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { window_end: string }).window_end);
  assert.deepEqual(ends, ['2020-04-15 08:10:00.000', '2020-04-15 08:15:00.000', '2020-04-15 08:20:00.000', '2020-04-15 08:25:00.000']);
});
