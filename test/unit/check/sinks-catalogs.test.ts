// Sinks (per-connector settings, partition/sort specs, keys), catalogs and compaction policies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check, diag, kafkaSource } from './helpers.ts';
import { section } from '../../support/ir-sections.ts';

const SRC = kafkaSource('t', 'k STRING NOT NULL, n INT, d DECIMAL(10, 2), f DOUBLE, day_ DATE, ts TIMESTAMP(3) NOT NULL');
const CAT = "CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '/tmp/wh');\n";
const iceberg = (opts: string): string => `${SRC}${CAT}CREATE SINK s FROM t WITH (connector = 'iceberg', catalog = 'lake', table = 'ns.t'${opts});`;

test('iceberg partition transforms parse into fields', async () => {
  const c = await check(iceberg(", partition_by = 'hour(ts), truncate(4, k), bucket(8, d), n, identity(day_), month(day_)'"));
  assert.deepEqual(c.codes, []);
  assert.deepEqual(section(c.plan!.sinks[0]!, 'iceberg').partitionBy, [
    { column: 'ts', transform: 'hour', param: null },
    { column: 'k', transform: 'truncate', param: 4 },
    { column: 'd', transform: 'bucket', param: 8 },
    { column: 'n', transform: 'identity', param: null },
    { column: 'day_', transform: 'identity', param: null },
    { column: 'day_', transform: 'month', param: null },
  ]);
});

test('iceberg partition type rules: hour needs a timestamp, truncate no DOUBLE, bucket no DOUBLE', async () => {
  for (const spec of ['hour(day_)', 'truncate(4, f)', 'bucket(4, f)', 'day(k)']) {
    const c = await check(iceberg(`, partition_by = '${spec}'`));
    assert.deepEqual(c.errors, ['partition-spec-invalid'], spec);
  }
  const unknown = await check(iceberg(", partition_by = 'dya(ts)'"));
  assert.match(diag(unknown, 'partition-spec-invalid').message, /unknown transform 'dya' \(did you mean 'day'\?\)/);
  const nocol = await check(iceberg(", partition_by = 'bucket(16, kk)'"));
  assert.match(diag(nocol, 'partition-spec-invalid').message, /no column 'kk'/);
});

test('iceberg sort_by with directions and null ordering; defaults', async () => {
  const c = await check(iceberg(", sort_by = 'k DESC, n ASC NULLS LAST, ts'"));
  assert.deepEqual(section(c.plan!.sinks[0]!, 'iceberg').sortBy, [
    { column: 'k', direction: 'desc', nulls: 'last' },
    { column: 'n', direction: 'asc', nulls: 'last' },
    { column: 'ts', direction: 'asc', nulls: 'first' },
  ]);
  const bad = await check(iceberg(", sort_by = 'k SIDEWAYS'"));
  assert.deepEqual(bad.errors, ['sort-spec-invalid']);
});

test('iceberg defaults, format_version and target sizes', async () => {
  const c = await check(iceberg(", format_version = '3', target_file_size = '256 MiB'"));
  const ice = section(c.plan!.sinks[0]!, 'iceberg');
  assert.equal(ice.formatVersion, 3);
  assert.equal(ice.targetFileSizeBytes, 256 * 1024 * 1024);
  assert.equal(ice.commitIntervalMs, 30_000); // the checkpoint interval
  assert.equal(ice.writeMode, 'copy-on-write');
  const bad = await check(iceberg(", format_version = '1', table = 'justname'"));
  assert.deepEqual(bad.errors.sort(), ['duplicate-option', 'invalid-option-value']);
  const noNs = await check(`${SRC}${CAT}CREATE SINK s FROM t WITH (connector = 'iceberg', catalog = 'lake', table = 'justname');`);
  assert.deepEqual(noNs.errors, ['invalid-table-name']);
});

test('kafka sink settings and key columns', async () => {
  const c = await check(`${SRC}CREATE SINK s FROM t WITH (connector = 'kafka', topic = 'out', key = 'k', acks = '1', enable.idempotence = false, delivery = 'at-least-once');`);
  assert.deepEqual(c.codes, []);
  assert.deepEqual(section(c.plan!.sinks[0]!, 'kafka'), { topic: 'out', format: 'json', key: ['k'], acks: '1', idempotent: false, delivery: 'at-least-once' });
  const bad = await check(`${SRC}CREATE SINK s FROM t WITH (connector = 'kafka', topic = 'out', key = 'kk');`);
  assert.deepEqual(bad.errors, ['sink-column-unknown']);
});

test('clickhouse sink: order_by columns, default database', async () => {
  const c = await check(`${SRC}CREATE SINK s FROM t WITH (connector = 'clickhouse', table = 'events', order_by = 'k, ts', ttl = 'ts + INTERVAL 1 DAY');`);
  assert.deepEqual(section(c.plan!.sinks[0]!, 'clickhouse'), { table: 'default.events', orderBy: ['k', 'ts'], partitionBy: null, ttl: 'ts + INTERVAL 1 DAY' });
  const bad = await check(`${SRC}CREATE SINK s FROM t WITH (connector = 'clickhouse', table = 'a.events', order_by = 'k, tss');`);
  assert.deepEqual(bad.errors, ['sink-column-unknown']);
  assert.equal(diag(bad, 'sink-column-unknown').help, "did you mean 'ts'?");
});

test('file and stdout sinks', async () => {
  const c = await check(`${SRC}CREATE SINK a FROM t WITH (connector = 'file', path = 'out/x.parquet');
CREATE SINK b FROM t WITH (connector = 'stdout', format = 'ndjson');
CREATE SINK e FROM t WITH (connector = 'stdout', format = 'xml');`);
  assert.deepEqual(c.errors, ['invalid-option-value']);
  assert.deepEqual(section(c.plan!.sinks[0]!, 'file'), { path: 'out/x.parquet', format: 'parquet' });
});

test('a sink AS SELECT gets its own operators; FROM a source gets its own scan', async () => {
  const c = await check(`${SRC}CREATE SINK a AS SELECT k, n * 2 AS n2 FROM t WHERE n > 0 WITH (connector = 'stdout');
CREATE SINK b FROM t WITH (connector = 'stdout');`);
  assert.deepEqual(c.codes, []);
  assert.deepEqual(c.plan!.operators.map((o) => o.id), ['a/scan', 'a/filter', 'a/project', 'b/scan']);
  assert.deepEqual(c.plan!.sinks.map((s) => s.input), ['a/project', 'b/scan']);
});

test('catalog types and their options', async () => {
  const c = await check(`CREATE CATALOG a WITH (type = 'rest');
CREATE CATALOG b WITH (type = 'hive', uri = 'x');
CREATE CATALOG c WITH (type = 'sql', uri = 'x', warehouse = 'y', wharehouse = 'z');`);
  assert.deepEqual(c.errors, ['missing-option', 'invalid-option-value', 'unknown-option']);
});

test('compaction: target must be an iceberg sink; values are checked', async () => {
  const c = await check(`${SRC}CREATE SINK out FROM t WITH (connector = 'stdout');
CREATE COMPACTION POLICY p ON out (REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY);
CREATE COMPACTION POLICY q ON nowhere (REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY);`);
  assert.deepEqual(c.errors, ['compaction-target', 'compaction-target']);
  const v = await check(`${iceberg('')}
CREATE COMPACTION POLICY p ON s (
  REWRITE DATA FILES WHERE file_size < '32 parsecs' TARGET '1 GiB',
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '1' MONTH
) SCHEDULE EVERY INTERVAL '30' MINUTE;`);
  assert.deepEqual(v.errors, ['compaction-value-invalid', 'calendar-interval']);
});
