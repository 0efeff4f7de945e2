// Flink's event-time temporal join needs a row time on the versioned side: a CDC source with a
// WATERMARK is joined FOR SYSTEM_TIME AS OF in the script; one without (the runtime versions it by
// its own clock) is refused by Flink's planner ("requires both primary key and row time attribute
// in versioned table", seen on Flink 2.3 through `pipec test --target flink`), so the target
// leaves the join out and says so with flink-temporal-join-versioned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../../../src/api.ts';

const spec = (cdcWatermark: string): string => `
CREATE SOURCE customers (
  id BIGINT NOT NULL, tier STRING, updated_at TIMESTAMP(3) NOT NULL,${cdcWatermark}
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_PG_URL}', table = 'public.customers', heartbeat = '1 min');
CREATE SOURCE orders (
  order_id STRING, customer_id BIGINT, order_ts TIMESTAMP(3),
  WATERMARK FOR order_ts AS order_ts - INTERVAL '1' SECOND
) WITH (connector = 'kafka', topic = 'orders', format = 'json');
CREATE VIEW enriched AS
SELECT o.order_id, c.tier FROM orders AS o
JOIN customers FOR SYSTEM_TIME AS OF o.order_ts AS c ON o.customer_id = c.id;
CREATE SINK out FROM enriched WITH (connector = 'kafka', topic = 'out');
`;

async function flinkOf(text: string): Promise<{ sql: string; codes: string[] }> {
  const r = await build({ sources: { 'p.pipe.sql': text }, targets: ['flink'], env: { PIPEC_PG_URL: 'postgres://u@h/db' } });
  const file = Object.entries(r.outputs).find(([p]) => p.endsWith('flink/pipeline.sql'));
  assert.ok(file, r.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
  return { sql: String(file[1]), codes: r.diagnostics.map((d) => d.code) };
}

test('a CDC source with a WATERMARK is joined FOR SYSTEM_TIME AS OF on Flink', async () => {
  const { sql, codes } = await flinkOf(spec("\n  WATERMARK FOR updated_at AS updated_at,"));
  assert.match(sql, /JOIN `customers` FOR SYSTEM_TIME AS OF l\.`order_ts` AS r/);
  assert.match(sql, /INSERT INTO `out__sink`/);
  assert.ok(!codes.includes('flink-temporal-join-versioned'), codes.join(', '));
});

test('a CDC source without a WATERMARK: the join is left out, by code, never planned to fail', async () => {
  const { sql, codes } = await flinkOf(spec(''));
  assert.doesNotMatch(sql, /FOR SYSTEM_TIME AS OF/);
  assert.doesNotMatch(sql, /INSERT INTO `out__sink`/);
  assert.ok(codes.includes('flink-temporal-join-versioned'), codes.join(', '));
});
