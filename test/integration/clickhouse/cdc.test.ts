// PostgreSQL CDC in ClickHouse: Debezium change events → ReplacingMergeTree(_version, _is_deleted), run in
// chdb with hand-written Debezium messages (insert, update, delete, a replayed old update, a tombstone).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { T } from '../../../src/types/sql-type.ts';
import type { IrSource, PlanDoc } from '../../../src/plan/ir.ts';
import { chSink, col, envOpt, opt, plan, scan, span } from '../../fixtures/clickhouse/plan-builder.ts';
import { runChdb } from '../../support/chdb.ts';
import { insert, normalize } from './support.ts';

const customers: IrSource = {
  id: 'customers',
  name: 'customers',
  connector: 'postgres-cdc',
  format: null,
  schemaRef: null,
  columns: [col('id', T.bigint(false)), col('name', T.string()), col('balance', T.decimal(12, 2)), col('updated_at', T.timestamp(3))],
  usedColumns: ['id', 'name', 'balance', 'updated_at'],
  watermark: null,
  primaryKey: ['id'],
  messageKey: null,
  changelog: 'changelog',
  options: { dsn: envOpt('PIPEC_PG_DSN'), table: opt('public.customers'), brokers: envOpt('PIPEC_KAFKA_BROKERS') },
  schemaText: null,
  span,
};

function cdcPlan(): PlanDoc {
  const s = scan('scan', customers);
  return plan('crm', {
    sources: [customers],
    operators: [{ ...s, changelog: 'upsert', upsertKey: ['id'] }],
    sinks: [chSink('customers_ch', 'scan', customers.columns, 'analytics.customers', { changelog: 'upsert', upsertKey: ['id'] }, { orderBy: ['id'] })],
  });
}

const ev = (op: string, lsn: number, before: object | null, after: object | null): { raw: string } => ({
  raw: JSON.stringify({ before, after, source: { lsn, ts_ms: 1586937600000 }, op, ts_ms: 1586937600000 }),
});
// updated_at, a TIMESTAMP(3), in Debezium's io.debezium.time.Timestamp: milliseconds since the epoch
// (2020-04-15 08:00:00 = 1586937600 s).
const row = (id: number, name: string, balance: string, minute: number): object => ({ id, name, balance, updated_at: (1586937600 + minute * 60) * 1000 });

test('Debezium events collapse to the latest version per key; deletes and replays of old versions do not resurrect rows', async () => {
  const out = emitClickHouse(cdcPlan(), { sourceMode: 'insertable' });
  assert.equal(out.diagnostics.hasErrors, false);
  const events = [
    ev('r', 100, null, row(1, 'Ada', '10.00', 0)),
    ev('c', 200, null, row(2, 'Bob', '5.50', 1)),
    // With the JSON converter's schemas enabled, the event sits in `payload`.
    { raw: JSON.stringify({ schema: { type: 'struct' }, payload: JSON.parse(ev('u', 300, row(1, 'Ada', '10.00', 0), row(1, 'Ada L.', '12.25', 2)).raw) }) },
    ev('d', 400, row(2, 'Bob', '5.50', 1), null),
    // A redelivered, older update of key 1 must lose against version 300.
    ev('u', 150, row(1, 'Ada', '10.00', 0), row(1, 'stale', '0.00', 9)),
  ];
  const tombstone = { raw: '{"heartbeat": true}' };
  const [internal, sink] = (
    await runChdb(
      [
        out.sql,
        insert('`crm`.`customers__debezium`', ['raw'], [...events, tombstone]),
        'SELECT id, name, balance, updated_at FROM `crm`.`customers` FINAL ORDER BY id;',
        'SELECT id, name, balance, updated_at FROM `crm`.`customers_ch` FINAL ORDER BY id;',
      ].join('\n'),
    )
  )
    .filter((r) => r.statement.startsWith('SELECT'))
    .map((r) => r.rows);
  const expected = [{ id: '1', name: 'Ada L.', balance: '12.25', updated_at: '2020-04-15 08:02:00.000' }];
  assert.deepEqual(normalize(internal!), expected);
  assert.deepEqual(normalize(sink!), expected);
});

test('the CDC table is a ReplacingMergeTree(version, is_deleted) keyed by the primary key, with its reasoning', () => {
  const { sql, diagnostics } = emitClickHouse(cdcPlan());
  assert.match(sql, /CREATE TABLE IF NOT EXISTS `crm`\.`customers`\n\([^;]*`_version` UInt64,\n {4}`_is_deleted` UInt8\n\)\nENGINE = ReplacingMergeTree\(`_version`, `_is_deleted`\)\nORDER BY \(`id`\)/);
  assert.match(sql, /-- ReplacingMergeTree\(_version, _is_deleted\): a key keeps its row of the highest version/);
  assert.match(sql, /kafka_topic_list = 'customers\.public\.customers'/);
  assert.match(sql, /kafka_format = 'JSONAsString'/);
  // Readers of the CDC table see only rows inserted after the MV exists.
  assert.ok(diagnostics.items.some((d) => d.code === 'clickhouse-populate-risk'));
  // An upsert sink deduplicates: no at-least-once warning.
  assert.ok(!diagnostics.items.some((d) => d.code === 'clickhouse-at-least-once-duplicates'));
});
