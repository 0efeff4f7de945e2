// The full example of LANGUAGE.md (with the late-events sink it names declared, and the
// registry schema replaced by the same schema as a file) checks clean and gives this plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import type { IrExpr } from '../../../src/plan/ir.ts';
import { check, op } from './helpers.ts';
import { section } from '../../support/ir-sections.ts';

const SPEC = `
PIPELINE orders_revenue WITH (checkpoint_interval = '30 s');

CREATE SOURCE orders (
  order_id     STRING NOT NULL,
  customer_id  BIGINT,
  amount       DECIMAL(12, 2),
  order_ts     TIMESTAMP(3),
  kafka_offset BIGINT METADATA FROM 'offset',
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (
  connector    = 'kafka',
  topic        = 'orders',
  format       = 'avro',
  schema       = 'file:schemas/orders.avsc',
  key          = 'customer_id',
  startup      = 'earliest',
  idle_timeout = '30 s'
);

CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end,
       SUM(amount) AS revenue, COUNT(*) AS orders
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
WHERE amount > 0
GROUP BY customer_id, window_start, window_end
EMIT ON WINDOW CLOSE
ALLOWED LATENESS INTERVAL '30' SECOND
ON LATE TO orders_late;

CREATE SINK orders_late WITH (connector = 'kafka', topic = 'orders-late', format = 'json');

CREATE CATALOG lake WITH (type = 'sql', uri = '\${PIPEC_CATALOG_URI}', warehouse = '\${PIPEC_WAREHOUSE}');

CREATE SINK revenue_ch FROM revenue_1m WITH (
  connector = 'clickhouse',
  url       = '\${PIPEC_CLICKHOUSE_URL}',
  table     = 'analytics.revenue_1m',
  order_by  = 'customer_id, window_start'
);

CREATE SINK revenue_lake FROM revenue_1m WITH (
  connector        = 'iceberg',
  catalog          = 'lake',
  table            = 'analytics.revenue_1m',
  partition_by     = 'day(window_start), bucket(16, customer_id)',
  sort_by          = 'customer_id',
  format_version   = '2',
  target_file_size = '128 MB',
  commit_interval  = '1 min',
  write_mode       = 'merge-on-read'
);

CREATE SINK alerts AS SELECT * FROM revenue_1m WHERE revenue > 10000
WITH (connector = 'kafka', topic = 'revenue-alerts', format = 'json', key = 'customer_id');

CREATE COMPACTION POLICY revenue_maintenance ON revenue_lake (
  REWRITE DATA FILES WHERE file_size < '32 MB' TARGET '128 MB' MIN INPUT FILES 5,
  REWRITE DELETE FILES WHERE delete_ratio > 0.5 PERCENT,
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY RETAIN LAST 5,
  REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY
) SCHEDULE EVERY INTERVAL '1' HOUR;
`;

const col = (name: string, type: IrExpr['type']): IrExpr => ({ kind: 'col', input: 0, name, type });

test('the LANGUAGE.md example checks without diagnostics', async () => {
  const c = await check(SPEC);
  assert.deepEqual(c.codes, []);
  assert.ok(c.plan);
});

test('LANGUAGE.md example: pipeline and source', async () => {
  const { plan } = await check(SPEC);
  assert.equal(plan!.pipeline.name, 'orders_revenue');
  assert.equal(plan!.pipeline.checkpointIntervalMs, 30_000);
  assert.equal(plan!.pipeline.file, 'specs/test.pipe.sql');
  const [src] = plan!.sources;
  assert.equal(src!.name, 'orders');
  assert.equal(src!.connector, 'kafka');
  assert.equal(src!.format, 'avro');
  assert.equal(src!.schemaRef, 'file:schemas/orders.avsc');
  assert.deepEqual(src!.columns.map((x) => [x.name, x.metadataFrom]), [
    ['order_id', null], ['customer_id', null], ['amount', null], ['order_ts', null], ['kafka_offset', 'offset'],
  ]);
  assert.deepEqual(src!.watermark, { column: 'order_ts', delayMs: 5000, idleTimeoutMs: 30_000 });
  assert.deepEqual(src!.messageKey, ['customer_id']);
  assert.equal(src!.changelog, 'append');
  assert.deepEqual(src!.options['topic'], { value: 'orders', template: 'orders', envVars: [] });
});

test('LANGUAGE.md example: the view is scan → filter → window_agg → project', async () => {
  const { plan } = await check(SPEC);
  const view = plan!.views.find((v) => v.name === 'revenue_1m')!;
  assert.equal(view.operator, 'revenue_1m/project');
  const chain = ['revenue_1m/scan', 'revenue_1m/filter', 'revenue_1m/window', 'revenue_1m/project'];
  assert.deepEqual(chain.map((id) => op(plan, id).op), ['scan', 'filter', 'window_agg', 'project']);
  chain.slice(1).forEach((id, i) => assert.deepEqual(op(plan, id).inputs, [chain[i]]));

  const filter = op(plan, 'revenue_1m/filter');
  assert.ok(filter.op === 'filter');
  // amount > 0: the INT literal is re-typed to amount's DECIMAL(12, 2).
  assert.deepEqual(filter.predicate, {
    kind: 'call', fn: 'gt', type: T.boolean(true),
    args: [col('amount', T.decimal(12, 2)), { kind: 'lit', value: '0', type: T.decimal(12, 2, false) }],
  });

  const w = op(plan, 'revenue_1m/window');
  assert.ok(w.op === 'window_agg');
  assert.deepEqual(w.window, { kind: 'tumble', sizeMs: 60_000, offsetMs: 0 });
  assert.equal(w.windowTimeColumn, 'order_ts');
  assert.deepEqual(w.groupKeys, [{ name: 'customer_id', expr: col('customer_id', T.bigint()) }]);
  assert.deepEqual(w.aggregates, [
    { name: 'revenue', fn: 'sum', arg: col('amount', T.decimal(12, 2)), type: T.decimal(38, 2) },
    { name: 'orders', fn: 'count_star', arg: null, type: T.bigint(false) },
  ]);
  assert.deepEqual(w.windowColumns, ['window_start', 'window_end']);
  assert.equal(w.emit, 'on_window_close');
  assert.equal(w.allowedLatenessMs, 30_000);
  assert.deepEqual(w.late, { kind: 'to', sink: 'orders_late' });
  assert.equal(w.changelog, 'append');
  assert.deepEqual(w.stateBound, { kind: 'window', retainMs: 90_000 });

  const p = op(plan, 'revenue_1m/project');
  assert.deepEqual(p.schema.map((x) => [x.name, x.type]), [
    ['customer_id', T.bigint()],
    ['window_start', T.timestamp(3, false)],
    ['window_end', T.timestamp(3, false)],
    ['revenue', T.decimal(38, 2)],
    ['orders', T.bigint(false)],
  ]);
  assert.equal(p.changelog, 'append');
  assert.deepEqual(p.stateBound, { kind: 'stateless' });
  assert.equal(op(plan, 'revenue_1m/scan').timeColumn, 'order_ts');
});

test('LANGUAGE.md example: sinks', async () => {
  const { plan } = await check(SPEC);
  const sink = (n: string) => plan!.sinks.find((s) => s.name === n)!;
  assert.deepEqual(plan!.sinks.map((s) => s.name), ['orders_late', 'revenue_ch', 'revenue_lake', 'alerts']);

  const late = sink('orders_late');
  assert.equal(late.input, null);
  assert.deepEqual(late.lateFrom, ['revenue_1m/window']);
  assert.deepEqual(late.schema.map((x) => x.name), ['order_id', 'customer_id', 'amount', 'order_ts', 'kafka_offset', 'late_by_ms']);
  assert.deepEqual(late.schema.at(-1)!.type, T.bigint(false));

  assert.deepEqual(section(sink('revenue_ch'), 'clickhouse'), { table: 'analytics.revenue_1m', orderBy: ['customer_id', 'window_start'], partitionBy: null, ttl: null });
  assert.equal(sink('revenue_ch').input, 'revenue_1m/project');
  assert.deepEqual(sink('revenue_ch').options['url'], { value: 'val_pipec_clickhouse_url', template: '${PIPEC_CLICKHOUSE_URL}', envVars: ['PIPEC_CLICKHOUSE_URL'] });

  assert.deepEqual(section(sink('revenue_lake'), 'iceberg'), {
    catalog: 'lake',
    table: 'analytics.revenue_1m',
    partitionBy: [
      { column: 'window_start', transform: 'day', param: null },
      { column: 'customer_id', transform: 'bucket', param: 16 },
    ],
    sortBy: [{ column: 'customer_id', direction: 'asc', nulls: 'first' }],
    formatVersion: 2,
    targetFileSizeBytes: 128_000_000,
    commitIntervalMs: 60_000,
    writeMode: 'merge-on-read',
    compressionCodec: 'snappy',
  });

  const alerts = sink('alerts');
  assert.equal(alerts.input, 'alerts/project');
  assert.deepEqual(op(plan, 'alerts/filter').inputs, ['revenue_1m/project']);
  // No `delivery` option: at-least-once, what the runtime runs (docs/language-decisions.md "Defaults").
  assert.deepEqual(section(alerts, 'kafka'), { topic: 'revenue-alerts', format: 'json', key: ['customer_id'], acks: 'all', idempotent: true, delivery: 'at-least-once' });
  assert.deepEqual(alerts.schema.map((x) => x.name), ['customer_id', 'window_start', 'window_end', 'revenue', 'orders']);
});

test('LANGUAGE.md example: catalog and compaction policy', async () => {
  const { plan } = await check(SPEC);
  assert.deepEqual(plan!.catalogs.map((c) => [c.name, c.type, c.options['uri']!.template]), [['lake', 'sql', '${PIPEC_CATALOG_URI}']]);
  const [cp] = plan!.compactions;
  assert.equal(cp!.sink, 'revenue_lake');
  assert.equal(cp!.scheduleMs, 3_600_000);
  assert.deepEqual(cp!.actions, [
    { kind: 'rewrite_data_files', fileSizeBelowBytes: 32_000_000, targetBytes: 128_000_000, minInputFiles: 5 },
    { kind: 'rewrite_delete_files', deleteRatioAbove: 0.005 },
    { kind: 'expire_snapshots', olderThanMs: 7 * 86_400_000, retainLast: 5 },
    { kind: 'remove_orphan_files', olderThanMs: 3 * 86_400_000 },
  ]);
});

test('LANGUAGE.md example: two checks give byte-identical plans', async () => {
  const a = await check(SPEC);
  const b = await check(SPEC);
  assert.equal(JSON.stringify(a.plan), JSON.stringify(b.plan));
});
