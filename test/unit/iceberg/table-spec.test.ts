// Iceberg table specs: field ids stable across rebuilds, schema evolution appended to the
// history, partition transforms and names as the table spec defines them, determinism.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { icebergTarget, lockPath } from '../../../targets/iceberg/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { syntheticSpan } from '../../../src/diagnostics/span.ts';
import type { IrColumn, IrIcebergSink, IrSink, PlanDoc } from '../../../src/plan/ir.ts';
import { section } from '../../support/ir-sections.ts';
import { T } from '../../../src/types/sql-type.ts';
import { nameUuid } from '../../../targets/iceberg/deterministic-uuid.ts';

const span = syntheticSpan('spec.pipe.sql');
const opt = (value: string, envVars: string[] = []) => ({ value, template: envVars.length ? `\${${envVars[0]}}` : value, envVars });

function planWith(columns: IrColumn[], partitionBy: IrIcebergSink['partitionBy'] = []): PlanDoc {
  const sink: IrSink = {
    id: 'sink/lake', name: 'lake', connector: 'iceberg', input: 'v/project', lateFrom: [], schema: columns,
    changelog: 'append', upsertKey: null, options: {},
    iceberg: {
      catalog: 'lake', table: 'analytics.revenue', partitionBy, sortBy: [{ column: 'customer_id', direction: 'asc', nulls: 'first' }],
      formatVersion: 2, targetFileSizeBytes: 134217728, commitIntervalMs: 300000, writeMode: 'merge-on-read', compressionCodec: 'zstd',
    },
    span,
  };
  return {
    irVersion: 1,
    pipeline: { name: 'orders_revenue', file: 'specs/orders_revenue.pipe.sql', syntax: 'sql', checkpointIntervalMs: 30000, options: {} },
    catalogs: [{ name: 'lake', type: 'filesystem', options: { warehouse: opt('file:///tmp/wh', ['PIPEC_WAREHOUSE']) }, span }],
    sources: [], operators: [], views: [], sinks: [sink],
    compactions: [{ name: 'maint', sink: 'lake', scheduleMs: 3600000, span, actions: [{ kind: 'expire_snapshots', olderThanMs: 7 * 86400000, retainLast: 5 }] }],
  };
}

const base: IrColumn[] = [
  { name: 'customer_id', type: T.bigint(false), metadataFrom: null },
  { name: 'window_start', type: T.timestamp(3, false), metadataFrom: null },
  { name: 'revenue', type: T.decimal(38, 2), metadataFrom: null },
  { name: 'tags', type: T.array(T.string(false)), metadataFrom: null },
];

async function emit(plan: PlanDoc, previous: Map<string, string> = new Map()) {
  const diagnostics = new DiagnosticBag();
  const files = await icebergTarget.emit(plan, { diagnostics, readPrevious: (p) => previous.get(p) ?? null });
  return { files: new Map(files.map((f) => [f.path, String(f.contents)])), diagnostics };
}

test('schema: SQL types map to Iceberg types, ids start at 1 in column order, nested ids follow', async () => {
  const { files } = await emit(planWith(base, [{ column: 'window_start', transform: 'day', param: null }, { column: 'customer_id', transform: 'bucket', param: 16 }]));
  const meta = JSON.parse(files.get('iceberg/lake/metadata.json')!);
  assert.equal(meta['format-version'], 2);
  assert.deepEqual(meta.schemas[0].fields, [
    { id: 1, name: 'customer_id', required: true, type: 'long' },
    { id: 2, name: 'window_start', required: true, type: 'timestamp' },
    { id: 3, name: 'revenue', required: false, type: 'decimal(38, 2)' },
    { id: 4, name: 'tags', required: false, type: { type: 'list', 'element-id': 5, element: 'string', 'element-required': true } },
  ]);
  assert.equal(meta['last-column-id'], 5);
  assert.deepEqual(meta['partition-specs'], [
    { 'spec-id': 0, fields: [
      { 'source-id': 2, 'field-id': 1000, name: 'window_start_day', transform: 'day' },
      { 'source-id': 1, 'field-id': 1001, name: 'customer_id_bucket_16', transform: 'bucket[16]' },
    ] },
  ]);
  assert.equal(meta['last-partition-id'], 1001);
  assert.equal(meta['default-sort-order-id'], 1);
  assert.deepEqual(meta['sort-orders'][1], { 'order-id': 1, fields: [{ transform: 'identity', 'source-id': 1, direction: 'asc', 'null-order': 'nulls-first' }] });
  assert.equal(meta.location, '${PIPEC_WAREHOUSE}/analytics/revenue', 'the warehouse stays a variable reference');
  assert.equal(meta.properties['history.expire.max-snapshot-age-ms'], String(7 * 86400000));
  assert.equal(meta.properties['history.expire.min-snapshots-to-keep'], '5');
  assert.equal(meta.properties['write.delete.mode'], 'merge-on-read');
});

test('field ids are stable across rebuilds and a new column gets a new id (schema evolution)', async () => {
  const first = await emit(planWith(base));
  const previous = new Map([[lockPath('lake'), first.files.get(lockPath('lake'))!]]);
  const again = await emit(planWith(base), previous);
  assert.equal(again.files.get('iceberg/lake/metadata.json'), first.files.get('iceberg/lake/metadata.json'), 'rebuild is byte-identical');

  // Version 2 of the spec: `orders` is added before `revenue`, and `tags` is dropped.
  const v2 = [base[0]!, base[1]!, { name: 'orders', type: T.bigint(false), metadataFrom: null }, base[2]!];
  const evolved = await emit(planWith(v2), previous);
  const meta = JSON.parse(evolved.files.get('iceberg/lake/metadata.json')!);
  assert.equal(meta.schemas.length, 2, 'the old schema stays in the history');
  assert.equal(meta['current-schema-id'], 1);
  const ids = Object.fromEntries(meta.schemas[1].fields.map((f: { name: string; id: number }) => [f.name, f.id]));
  assert.deepEqual(ids, { customer_id: 1, window_start: 2, orders: 6, revenue: 3 }, 'kept ids; ids 4 and 5 of the dropped column are not reused');
  assert.equal(meta['last-column-id'], 6);
});

test('format version 3 keeps nanosecond timestamps; version 2 warns that it cannot', async () => {
  const cols: IrColumn[] = [{ name: 'ts', type: T.timestampLtz(9, false), metadataFrom: null }];
  const plan2 = planWith(cols);
  section(plan2.sinks[0], 'iceberg').sortBy = [];
  const v2 = await emit(plan2);
  assert.equal(v2.diagnostics.items.length, 1);
  assert.equal(v2.diagnostics.items[0]?.code, 'iceberg-lossy-type');
  const plan3 = planWith(cols);
  section(plan3.sinks[0], 'iceberg').formatVersion = 3;
  section(plan3.sinks[0], 'iceberg').sortBy = [];
  const v3 = await emit(plan3);
  const meta = JSON.parse(v3.files.get('iceberg/lake/metadata.json')!);
  assert.equal(meta.schemas[0].fields[0].type, 'timestamptz_ns');
  assert.equal(meta['next-row-id'], 0);
  assert.equal(v3.diagnostics.items.length, 0);
});

test('maintenance plan: Spark SQL CALLs for each action', async () => {
  const { files } = await emit(planWith(base));
  const sql = files.get('iceberg/maintenance/maint.spark.sql')!;
  // Catalog and table parts are backtick-quoted identifiers (the table inside a string literal).
  assert.match(sql, /CALL `lake`\.system\.expire_snapshots\(table => '`analytics`\.`revenue`', older_than => current_timestamp\(\) - INTERVAL 7 DAYS, retain_last => 5\);/);
  const json = JSON.parse(files.get('iceberg/maintenance/maint.json')!);
  assert.equal(json.table, 'lake.analytics.revenue');
});

test('name-based UUIDs are stable, distinct, and carry the version-5 and RFC 4122 variant bits', () => {
  const a = nameUuid('p/lake/a.b');
  assert.equal(a, nameUuid('p/lake/a.b'));
  assert.notEqual(a, nameUuid('p/lake/a.c'));
  assert.match(a, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});
