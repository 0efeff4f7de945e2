// Semantic proof on a real ClickHouse engine (chdb): the insertable variant of the emitted DDL runs the
// Flink documentation's Bid example, and each read view returns the documented (or hand-computed) rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { T } from '../../../src/types/sql-type.ts';
import type { IrWindow, WindowAggOp } from '../../../src/plan/ir.ts';
import { agg, BID_PRICE, bidSource, bidWindowPlan, call, col, filter, lit, plan, project, ref, scan, span } from '../../fixtures/clickhouse/plan-builder.ts';
import { runChdb } from '../../support/chdb.ts';
import { bids, expectedCase, insert, normalize, type Row } from './support.ts';

const BID_COLS = ['bidtime', 'price', 'item'];
const insertBids = insert('`bids`.`bid`', BID_COLS, bids);
// A bid far after the example moves the watermark past every documented window (and opens a window of its own).
const insertLater = insert('`bids`.`bid`', BID_COLS, [{ bidtime: '2020-04-15 09:00:00.000', price: '100.00', item: 'Z' }]);
const selectWindows = 'SELECT * FROM `bids`.`bid_windows` ORDER BY window_start, window_end;';

async function run(script: string): Promise<Row[][]> {
  const res = await runChdb(script);
  return res.filter((r) => /^SELECT/i.test(r.statement)).map((r) => r.rows);
}

function ddl(window: IrWindow, extra: Partial<WindowAggOp> = {}, aggregates?: Parameters<typeof bidWindowPlan>[1]): string {
  const out = emitClickHouse(bidWindowPlan(window, aggregates, extra), { sourceMode: 'insertable' });
  assert.equal(out.diagnostics.hasErrors, false, JSON.stringify(out.diagnostics.items));
  return out.sql;
}

// Watermark after the six bids: 08:17 - 1 s = 08:16:59. A window closes when window_end - 1 ms <= watermark,
// i.e. when window_end <= 08:17:00.
const closedBy0817 = (rows: Row[]): Row[] => rows.filter((r) => String(r['window_end']) <= '2020-04-15 08:17:00.000');

for (const name of ['tumble_10m_sum', 'tumble_10m_offset_1m_sum', 'hop_5m_10m_sum', 'cumulate_2m_10m_sum']) {
  test(`${name}: EMIT ON WINDOW CLOSE read view shows exactly the windows the watermark closed`, async () => {
    const c = expectedCase(name);
    const [before, after, types] = await run(
      [ddl(c.window as IrWindow), insertBids, selectWindows, insertLater, selectWindows, 'SELECT DISTINCT toTypeName(price) AS t FROM `bids`.`bid_windows`;'].join('\n'),
    );
    assert.deepEqual(normalize(before!), normalize(closedBy0817(c.rows)));
    assert.ok(before!.length < c.rows.length, 'some windows are still open before the late bid');
    assert.deepEqual(normalize(after!), normalize(c.rows));
    // SUM of DECIMAL(10, 2) stays an exact decimal.
    assert.deepEqual(types, [{ t: 'Nullable(Decimal(38, 2))' }]);
  });
}

test('EMIT CHANGES: the read view shows every window, open or closed, as soon as rows arrive', async () => {
  const c = expectedCase('hop_5m_10m_sum');
  const [rows] = await run([ddl(c.window as IrWindow, { emit: 'changes' }), insertBids, selectWindows].join('\n'));
  assert.deepEqual(normalize(rows!), normalize(c.rows));
});

test('allowed lateness holds windows back: HOP closes only [08:00, 08:10) with 2 min lateness', async () => {
  const c = expectedCase('hop_5m_10m_sum');
  // 08:15 - 1 ms + 2 min = 08:16:59.999 > 08:16:59, so the second window stays open.
  const [rows] = await run([ddl(c.window as IrWindow, { allowedLatenessMs: 120_000 }), insertBids, selectWindows].join('\n'));
  assert.deepEqual(normalize(rows!), normalize(c.rows.slice(0, 1)));
});

test('every aggregate of the mapping table gives the hand-computed result', async () => {
  const c = expectedCase('tumble_10m_every_aggregate');
  const item = ref('item', T.string());
  const price = ref('price', BID_PRICE);
  const aggs = [
    agg('bids', 'count_star', null, T.bigint(false)),
    agg('items', 'count', item, T.bigint(false)),
    agg('distinct_items', 'count_distinct', item, T.bigint(false)),
    agg('total', 'sum', price, T.decimal(38, 2)),
    agg('low', 'min', price, BID_PRICE),
    agg('high', 'max', price, BID_PRICE),
    agg('mean', 'avg', price, T.decimal(38, 6)),
    agg('approx_items', 'approx_count_distinct', item, T.bigint(false)),
    agg('first_item', 'first_value', item, T.string()),
    agg('last_item', 'last_value', item, T.string()),
  ];
  const [rows, types] = await run(
    [
      ddl(c.window as IrWindow, {}, aggs),
      insertBids,
      insertLater,
      selectWindows,
      'SELECT toTypeName(total) AS total, toTypeName(mean) AS mean, toTypeName(bids) AS bids FROM `bids`.`bid_windows` LIMIT 1;',
    ].join('\n'),
  );
  assert.deepEqual(normalize(rows!), normalize(c.rows));
  assert.deepEqual(types, [{ total: 'Nullable(Decimal(38, 2))', mean: 'Nullable(Decimal(38, 6))', bids: 'Int64' }]);
});

test('AVG of decimals rounds half up at the result scale, and skips NULL like COUNT(x)', async () => {
  const price = ref('price', BID_PRICE);
  const aggs = [agg('mean', 'avg', price, T.decimal(38, 1)), agg('n', 'count', price, T.bigint(false)), agg('all_rows', 'count_star', null, T.bigint(false))];
  const rows = [
    { bidtime: '2020-04-15 08:01:00.000', price: '1.00', item: 'a' },
    { bidtime: '2020-04-15 08:02:00.000', price: '1.10', item: 'b' },
    { bidtime: '2020-04-15 08:03:00.000', price: null, item: 'c' },
  ];
  // (1.00 + 1.10) / 2 = 1.05 → 1.1 at scale 1 (half up); the NULL price is not counted.
  const [out] = await run([ddl({ kind: 'tumble', sizeMs: 600_000, offsetMs: 0 }, { emit: 'changes' }, aggs), insert('`bids`.`bid`', BID_COLS, rows), selectWindows].join('\n'));
  assert.deepEqual(normalize(out!), [{ window_start: '2020-04-15 08:00:00.000', window_end: '2020-04-15 08:10:00.000', mean: '1.1', n: '2', all_rows: '3' }]);
});

test('filter + projection view, and undecodable records go to the dead-letter table only', async () => {
  const c = expectedCase('filter_project');
  const src = bidSource();
  const price = ref('price', BID_PRICE);
  const gt = call('gt', [price, lit('2', T.decimal(1, 0, false))], T.boolean());
  const doubled = call('mul', [price, lit(2, T.int(false))], T.decimal(21, 2));
  const p = plan('bids', {
    sources: [src],
    operators: [
      scan('scan', src),
      filter('f', 'scan', src.columns, gt),
      project('p', 'f', [
        { name: 'item', expr: ref('item', T.string()) },
        { name: 'double_price', expr: doubled },
      ]),
    ],
    views: [{ name: 'expensive', operator: 'p', span }],
  });
  const out = emitClickHouse(p, { sourceMode: 'insertable' });
  const bad = "INSERT INTO `bids`.`bid` (`_topic`, `_partition`, `_offset`, `_raw_message`, `_error`) VALUES ('bid', 0, 7, '{\"bidtime\": oops', 'Cannot parse input');";
  const [rows, dead, types] = await run(
    [
      out.sql,
      insertBids,
      bad,
      'SELECT * FROM `bids`.`expensive` ORDER BY item;',
      'SELECT topic, partition, offset, raw_message, error FROM `bids`.`bid__dead_letters`;',
      'SELECT toTypeName(double_price) AS t FROM `bids`.`expensive` LIMIT 1;',
    ].join('\n'),
  );
  assert.deepEqual(normalize(rows!), normalize(c.rows));
  assert.deepEqual(dead, [{ topic: 'bid', partition: 0, offset: 7, raw_message: '{"bidtime": oops', error: 'Cannot parse input' }]);
  assert.deepEqual(types, [{ t: 'Nullable(Decimal(21, 2))' }]);
  void col;
});

test("TUMBLE offsets assign windows as the Flink documentation's Window Offset table says", async () => {
  // Record 2021-06-30 00:00:04, TUMBLE of 10 minutes; documented window per offset (minutes).
  const documented: [number, string, string][] = [
    [-16, '2021-06-29 23:54:00.000', '2021-06-30 00:04:00.000'],
    [-6, '2021-06-29 23:54:00.000', '2021-06-30 00:04:00.000'],
    [-4, '2021-06-29 23:56:00.000', '2021-06-30 00:06:00.000'],
    [0, '2021-06-30 00:00:00.000', '2021-06-30 00:10:00.000'],
    [4, '2021-06-29 23:54:00.000', '2021-06-30 00:04:00.000'],
    [6, '2021-06-29 23:56:00.000', '2021-06-30 00:06:00.000'],
    [16, '2021-06-29 23:56:00.000', '2021-06-30 00:06:00.000'],
  ];
  const script: string[] = [];
  documented.forEach(([offset], k) => {
    const p = bidWindowPlan({ kind: 'tumble', sizeMs: 600_000, offsetMs: offset * 60_000 }, undefined, { emit: 'changes' });
    p.pipeline.name = `offset_${k}`;
    script.push(emitClickHouse(p, { sourceMode: 'insertable' }).sql);
    script.push(insert(`\`offset_${k}\`.\`bid\``, BID_COLS, [{ bidtime: '2021-06-30 00:00:04.000', price: '1.00', item: 'x' }]));
    script.push(`SELECT window_start, window_end FROM \`offset_${k}\`.\`bid_windows\`;`);
  });
  const got = (await run(script.join('\n'))).map((rows) => rows.map((r) => [r['window_start'], r['window_end']]));
  assert.deepEqual(got, documented.map(([, s, e]) => [[s, e]]));
});

test('the watermark is the minimum over Kafka partitions; an idle partition stops holding it back after idle_timeout', async () => {
  const c = expectedCase('tumble_10m_sum');
  const cols = [...BID_COLS, '_partition'];
  const lagging = insert('`bids`.`bid`', cols, [{ bidtime: '2020-04-15 08:01:00.000', price: '0.00', item: 'lag', _partition: 1 }]);
  const inP0 = insert('`bids`.`bid`', cols, [...bids.map((b) => ({ ...b, _partition: 0 })), { bidtime: '2020-04-15 09:00:00.000', price: '100.00', item: 'Z', _partition: 0 }]);
  // Without idle_timeout: partition 1 (at 08:01) holds the watermark at 08:00:59, so no window is closed.
  const strict = bidWindowPlan(c.window as IrWindow);
  const [held] = await run([emitClickHouse(strict, { sourceMode: 'insertable' }).sql, lagging, inP0, selectWindows].join('\n'));
  assert.deepEqual(held, []);
  // With idle_timeout = 2.5 s: after a 3 s pause without inserts into partition 1 it drops out
  // (partition 0 got rows after the pause), so partition 0's watermark (08:59:59) closes both windows.
  const idle = bidWindowPlan(c.window as IrWindow);
  idle.sources[0]!.watermark!.idleTimeoutMs = 2500;
  const [before, , after] = await run([emitClickHouse(idle, { sourceMode: 'insertable' }).sql, lagging, selectWindows, 'SELECT sleep(3) AS s;', inP0, selectWindows].join('\n'));
  // The lagging bid (price 0.00) belongs to [08:00, 08:10) and adds nothing to its sum.
  assert.deepEqual(before, []);
  assert.deepEqual(normalize(after!), normalize(c.rows));
});

test('JSON timestamps: epoch milliseconds, ISO-8601 and SQL text are read; an unreadable one is a dead letter', async () => {
  const src = bidSource();
  const p = plan('bids', {
    sources: [src],
    operators: [scan('scan', src), project('p', 'scan', [{ name: 'item', expr: ref('item', T.string()) }, { name: 'bidtime', expr: ref('bidtime', T.timestamp(3)) }])],
    views: [{ name: 'times', operator: 'p', span }],
  });
  const out = emitClickHouse(p, { sourceMode: 'insertable' });
  // JSONEachRow is what the Kafka engine decodes messages with; the bare number arrives as text, as from Kafka.
  const json = [
    { bidtime: 1586937900000, price: '4.00', item: 'C' },
    { bidtime: '2020-04-15T08:07:00Z', price: 2, item: 'A' },
    { bidtime: '2020-04-15 08:09:00.000', price: '5.00', item: 'D' },
    { bidtime: 'not a time', price: '1.00', item: 'X' },
  ];
  const [rows, dead] = await run(
    [
      out.sql,
      `INSERT INTO \`bids\`.\`bid\` (bidtime, price, item) FORMAT JSONEachRow ${json.map((r) => JSON.stringify(r)).join(' ')};`,
      'SELECT item, bidtime FROM `bids`.`times` ORDER BY bidtime;',
      'SELECT error FROM `bids`.`bid__dead_letters`;',
    ].join('\n'),
  );
  assert.deepEqual(rows, [
    { item: 'C', bidtime: '2020-04-15 08:05:00.000' },
    { item: 'A', bidtime: '2020-04-15 08:07:00.000' },
    { item: 'D', bidtime: '2020-04-15 08:09:00.000' },
  ]);
  assert.deepEqual(dead, [{ error: 'cannot read TIMESTAMP column bidtime from not a time' }]);
});
