// The ClickHouse target's DDL and the runtime's ClickHouse sink never write the same table by default (issue #13.3):
// both running side by side would double every row. The DDL writes <pipeline>.<sink> unless `ddl_table` says
// otherwise; the DDL header and `pipec plan` show both tables; pointing ddl_table at the runtime's table warns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileFile, type CompileResult } from '../../../src/build/compile.ts';
import { printPlanText } from '../../../src/plan/print/text.ts';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const env = { get: (n: string): string | undefined => `<${n}>` };

const created = (sql: string): string[] => [...sql.matchAll(/^CREATE (?:TABLE|VIEW|MATERIALIZED VIEW) IF NOT EXISTS `([^`]+)`\.`([^`]+)`/gm)].map((m) => `${m[1]}.${m[2]}`);

function compileText(text: string): Promise<CompileResult> {
  return compileFile('shop.pipe.sql', { cwd: root, env, readText: () => text });
}

const spec = (sinkOptions: string): string => `PIPELINE shop;
CREATE SOURCE orders (id BIGINT NOT NULL, amount DECIMAL(12, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'kafka', topic = 'orders', brokers = 'localhost:9092', format = 'json');
CREATE SINK big FROM orders WITH (connector = 'clickhouse', table = 'analytics.orders', order_by = 'id'${sinkOptions});
`;

for (const dir of ['specs', 'test/fixtures/clickhouse/specs']) {
  for (const file of readdirSync(path.join(root, dir)).filter((f) => /\.pipe\.(sql|yaml)$/.test(f))) {
    test(`${dir}/${file}: the DDL creates no table a runtime ClickHouse sink writes`, async () => {
      const r = await compileFile(file, { cwd: path.join(root, dir), env });
      assert.ok(r.plan, `${file} did not compile`);
      const runtimeTables = r.plan.sinks.flatMap((s) => (s.connector === 'clickhouse' && s.clickhouse.ddlTable === undefined ? [s.clickhouse.table] : []));
      const objects = created(emitClickHouse(r.plan).sql);
      for (const t of runtimeTables) assert.ok(!objects.includes(t), `${t} is written by both the runtime sink and the DDL`);
    });
  }
}

test('default: the DDL writes <pipeline>.<sink>, and its header and pipec plan say so next to the runtime table', async () => {
  const r = await compileText(spec(''));
  assert.deepEqual(r.diagnostics.items.filter((d) => d.severity === 'error'), []);
  const out = emitClickHouse(r.plan!);
  assert.ok(created(out.sql).includes('shop.big'));
  assert.ok(!created(out.sql).some((t) => t.startsWith('analytics.')));
  assert.match(out.sql, /^-- {3}sink big → shop\.big; pipec run writes analytics\.orders$/m);
  assert.match(printPlanText(r.plan!), /^sink big → clickhouse analytics\.orders \(ClickHouse DDL: shop\.big\)/m);
  assert.ok(!out.diagnostics.items.some((d) => d.code === 'clickhouse-ddl-table-shared'));
});

test('ddl_table overrides it: qualified, or bare in the pipeline database', async () => {
  const q = emitClickHouse((await compileText(spec(", ddl_table = 'dash.orders_ch'"))).plan!);
  assert.ok(created(q.sql).includes('dash.orders_ch'));
  assert.match(q.sql, /^CREATE DATABASE IF NOT EXISTS `dash`;$/m);
  assert.match(q.sql, /^-- {3}sink big → dash\.orders_ch \(ddl_table\); pipec run writes analytics\.orders$/m);
  const bare = emitClickHouse((await compileText(spec(", ddl_table = 'orders_ch'"))).plan!);
  assert.ok(created(bare.sql).includes('shop.orders_ch'));
});

test("ddl_table = the runtime's table is allowed but warns that running both doubles rows", async () => {
  const out = emitClickHouse((await compileText(spec(", ddl_table = 'analytics.orders'"))).plan!);
  assert.ok(created(out.sql).includes('analytics.orders'));
  const d = out.diagnostics.items.find((x) => x.code === 'clickhouse-ddl-table-shared');
  assert.ok(d, 'expected clickhouse-ddl-table-shared');
  assert.equal(d.severity, 'warning');
  assert.match(d.message, /sink 'big'.*analytics\.orders.*doubles every row/);
});

test('a malformed ddl_table is a coded error at the option', async () => {
  const r = await compileText(spec(", ddl_table = 'a.b.c'"));
  const d = r.diagnostics.items.find((x) => x.code === 'invalid-table-name');
  assert.ok(d, 'expected invalid-table-name');
  assert.match(d.message, /a\.b\.c/);
});
