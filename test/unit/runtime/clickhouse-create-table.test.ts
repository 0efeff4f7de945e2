// The CREATE TABLE the ClickHouse sink shows when its table is missing (issue 13.6): the sink's
// columns with the types its encoder writes, per server version, its order_by / partition_by,
// and the ReplacingMergeTree columns a changelog sink needs. (The integration test in
// test/integration/lifecycle runs the shown DDL on the real server and writes through it.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTableSql } from '../../../targets/runtime/lib/clickhouse/create-table.ts';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import { sinkConfigOf } from '../../support/resolved-config.ts';
import type { ClickHouseSinkConfig } from '../../../targets/runtime/lib/config/clickhouse/config.ts';

/** The resolved config of a ClickHouse sink with these options (the compiler's resolver). */
const configOf = (options: Record<string, string>): ClickHouseSinkConfig => sinkConfigOf('clickhouse', 's', options) as ClickHouseSinkConfig;

const def = (options: Record<string, string>, extra: Partial<SinkDef> = {}): SinkDef => ({
  id: 's',
  name: 's',
  connector: 'clickhouse',
  options,
  columns: [
    { name: 'customer_id', kind: 'bigint', nullable: false },
    { name: 'amount', kind: 'decimal', nullable: false, precision: 12, scale: 2 },
    { name: 'order_ts', kind: 'timestamp', nullable: false, precision: 3 },
    { name: 'paid', kind: 'boolean', nullable: true },
    { name: 'odd name', kind: 'string', nullable: true },
  ],
  json: () => '',
  cells: () => [],
  ...extra,
});

test('an append sink on a modern server: MergeTree with its order_by and partition_by', () => {
  assert.equal(
    createTableSql(def({}), configOf({ order_by: 'customer_id, order_ts', partition_by: 'toYYYYMM(order_ts)' }), 'sales', 'orders', '24.3.1'),
    [
      'CREATE TABLE sales.orders',
      '(',
      '  customer_id Int64,',
      '  amount Decimal(12, 2),',
      '  order_ts DateTime64(3),',
      '  paid Nullable(Bool),',
      '  `odd name` Nullable(String)',
      ')',
      'ENGINE = MergeTree',
      'PARTITION BY toYYYYMM(order_ts)',
      'ORDER BY (customer_id, order_ts);',
    ].join('\n'),
  );
});

test('18.x has no DateTime64 nor Bool; a changelog sink gets _version / _is_deleted and its upsert key', () => {
  const sql = createTableSql(def({}, { changelog: 'upsert', upsertKey: ['customer_id'] }), configOf({}), 'default', 't', '18.16.1');
  assert.match(sql, /order_ts DateTime,/);
  assert.match(sql, /paid Nullable\(UInt8\)/);
  assert.match(sql, /_version UInt64,\n {2}_is_deleted UInt8\n\)\nENGINE = ReplacingMergeTree\(_version\)\nORDER BY \(customer_id\);$/);
  // No key anywhere: an explicit empty sorting key.
  assert.match(createTableSql(def({}), configOf({}), 'default', 't', '18.16.1'), /ORDER BY tuple\(\);$/);
});
