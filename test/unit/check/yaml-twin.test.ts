// LANGUAGE.md: "both forms compile to the same IR". The YAML twin of a pipeline and its SQL
// form give the same plan, spans and the syntax field aside.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeYaml } from '../../../src/syntax/yaml/index.ts';
import { checkPipeline } from '../../../src/check/index.ts';
import { createSchemaLoader } from '../../../src/schema/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { SPECS_DIR, check } from './helpers.ts';

const YAML = `pipeline: orders_revenue
sources:
  orders:
    connector: kafka
    topic: orders
    format: avro
    schema: file:schemas/orders.avsc
    watermark: { column: order_ts, delay: 5s }
    idle_timeout: 30s
views:
  revenue_1m:
    query: |
      SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
      FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
      GROUP BY customer_id, window_start, window_end
    emit: on_window_close
    allowed_lateness: 30s
    on_late: { to: orders_late }
sinks:
  orders_late: { connector: kafka, topic: orders-late }
  revenue_ch: { from: revenue_1m, connector: clickhouse, table: analytics.revenue_1m }
`;

const SQL = `PIPELINE orders_revenue;
CREATE SOURCE orders (WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND)
WITH (connector = 'kafka', topic = 'orders', format = 'avro', schema = 'file:schemas/orders.avsc', idle_timeout = '30s');
CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end
EMIT ON WINDOW CLOSE
ALLOWED LATENESS INTERVAL '30' SECOND
ON LATE TO orders_late;
CREATE SINK orders_late WITH (connector = 'kafka', topic = 'orders-late');
CREATE SINK revenue_ch FROM revenue_1m WITH (connector = 'clickhouse', table = 'analytics.revenue_1m');
`;

const strip = (x: unknown): unknown => JSON.parse(JSON.stringify(x, (k, v) => (k === 'span' || k === 'syntax' || k === 'template' ? undefined : v)));

test('the YAML twin and the SQL form check to the same plan', async () => {
  const bag = new DiagnosticBag();
  const env = { get: () => undefined };
  const ast = parsePipeYaml(YAML, { file: 'twin.pipe.yaml', env, diagnostics: bag });
  const fromYaml = await checkPipeline(ast, { diagnostics: bag, schemas: createSchemaLoader({ baseDir: SPECS_DIR, env }), baseDir: SPECS_DIR, relFile: 'specs/test.pipe.sql' });
  assert.deepEqual(bag.items.map((d) => d.code), []);
  const fromSql = await check(SQL);
  assert.deepEqual(fromSql.codes, []);
  assert.equal(fromYaml!.pipeline.syntax, 'yaml');
  assert.deepEqual(strip(fromYaml), strip(fromSql.plan));
});
