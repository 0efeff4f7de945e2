// The Flink target's connector options come from the physical plan's resolved configs (every
// default applied once, as the runtime gets them), and two fixes of what Flink 2.3 refused or
// misread: ClickHouse JDBC URLs (a `${VAR}` URL was no JDBC URL), ON CONFLICT for upsert sinks
// (Flink 2.3 refuses an INSERT whose upsert key it derives differently from the sink's key), and
// file sinks of updating views (left out and reported: Flink's filesystem sink takes inserts only).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build } from '../../../src/api.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { lowerPlan } from '../../../src/plan/physical/lower.ts';
import { emitFlinkScript } from '../../../targets/flink/index.ts';
import { clickhouseJdbcUrl } from '../../../targets/flink/connectors.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';

const SOURCE = `CREATE SOURCE s (ts TIMESTAMP(3), a STRING, v INT, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH (connector = 'kafka', topic = 'in', format = 'json', idle_timeout = '5 s');`;

async function planOf(spec: string): Promise<PlanDoc> {
  const r = await build({ sources: { 'p.pipe.sql': spec }, targets: ['flink'] });
  const plan = r.plans['p'];
  assert.ok(plan, r.diagnostics.map((d) => `${d.code}: ${d.message}`).join('\n'));
  return plan;
}

/** The `WITH (...)` body of the table `name` in a script. */
const withOf = (sql: string, name: string): string => {
  const at = sql.indexOf(`CREATE TEMPORARY TABLE \`${name}\``);
  assert.ok(at >= 0, `no table ${name}`);
  return sql.slice(sql.indexOf('WITH (', at), sql.indexOf(');', at));
};

test("the options come from the physical plan's resolved configs", async () => {
  const plan = await planOf(`${SOURCE}\nCREATE SINK k FROM s WITH (connector = 'kafka', topic = 'out', delivery = 'exactly-once');\n`);
  const physical = lowerPlan(plan);
  // A config the lowering resolved differently from the options must win: it is what runs.
  for (const s of physical.sources) if (s.config.connector === 'kafka') s.config.topic = 'in-resolved';
  for (const s of physical.sinks) if (s.config.connector === 'kafka') s.config.transactionalId = 'tx-resolved';
  const sql = emitFlinkScript(plan, new DiagnosticBag(), physical).sql;
  assert.match(withOf(sql, 's'), /'topic' = 'in-resolved'/);
  assert.match(withOf(sql, 'k__sink'), /'sink.transactional-id-prefix' = 'tx-resolved'/);
  // Without a physical plan (a direct caller) the target lowers the plan itself: the options' values.
  const own = emitFlinkScript(plan, new DiagnosticBag()).sql;
  assert.match(withOf(own, 's'), /'topic' = 'in'/);
  assert.match(withOf(own, 'k__sink'), /'sink.transactional-id-prefix' = 'pipec-p-k'/);
});

test('ClickHouse URLs become the JDBC driver URL, placeholders and https included', async () => {
  // The runtime's ClickHouse URL is http(s)://host:port; the driver takes jdbc:clickhouse:<that>.
  assert.equal(clickhouseJdbcUrl('${PIPEC_CLICKHOUSE_URL}'), 'jdbc:clickhouse:${PIPEC_CLICKHOUSE_URL}');
  assert.equal(clickhouseJdbcUrl('https://ch.example:8443'), 'jdbc:clickhouse:https://ch.example:8443');
  assert.equal(clickhouseJdbcUrl('http://localhost:8123'), 'jdbc:clickhouse:http://localhost:8123');
  assert.equal(clickhouseJdbcUrl('jdbc:clickhouse://h:8123/db'), 'jdbc:clickhouse://h:8123/db');
  const plan = await planOf(`${SOURCE}\nCREATE SINK ch FROM s WITH (connector = 'clickhouse', table = 'db.t', order_by = 'a');\n`);
  const w = withOf(emitFlinkScript(plan, new DiagnosticBag()).sql, 'ch__sink');
  // No url option: the runtime's PIPEC_CLICKHOUSE_URL, as a JDBC URL once substituted.
  assert.match(w, /'url' = 'jdbc:clickhouse:\$\{PIPEC_CLICKHOUSE_URL\}'/);
  assert.match(w, /'table-name' = 'db\.t'/);
});

test('an INSERT into an upsert sink says ON CONFLICT DO DEDUPLICATE; an append sink has none', async () => {
  const plan = await planOf(`${SOURCE}
CREATE VIEW g WITH (state_ttl = '1 h') AS SELECT a, SUM(v) AS total FROM s GROUP BY a EMIT CHANGES;
CREATE SINK up FROM g WITH (connector = 'kafka', topic = 'totals');
CREATE SINK raw FROM s WITH (connector = 'kafka', topic = 'raw');
`);
  const sql = emitFlinkScript(plan, new DiagnosticBag()).sql;
  assert.match(sql, /INSERT INTO `up__sink`\nSELECT [^;]* FROM `g`\nON CONFLICT DO DEDUPLICATE;/);
  assert.match(sql, /INSERT INTO `raw__sink`\nSELECT [^;]* FROM `[^`]+`;/);
});

test('a file sink of an updating view: NDJSON becomes Debezium JSON, Parquet is left out, both with flink-file-sink-changes', async () => {
  const plan = await planOf(`${SOURCE}
CREATE VIEW g WITH (state_ttl = '1 h') AS SELECT a, SUM(v) AS total FROM s GROUP BY a EMIT CHANGES;
CREATE SINK f FROM g WITH (connector = 'file', path = 'totals.ndjson', format = 'ndjson');
CREATE SINK pq FROM g WITH (connector = 'file', path = 'totals', format = 'parquet');
CREATE SINK raw FROM s WITH (connector = 'file', path = 'raw.ndjson', format = 'ndjson');
`);
  const bag = new DiagnosticBag();
  const sql = emitFlinkScript(plan, bag).sql;
  assert.deepEqual(bag.items.filter((d) => d.code === 'flink-file-sink-changes').map((d) => d.message.split(' ')[2]), ["'f'", "'pq'"]);
  // Flink's filesystem sink takes a changelog only through a changelog format (a plain json table
  // with an updating INSERT is refused by its planner); Parquet has none.
  assert.match(withOf(sql, 'f__sink'), /'format' = 'debezium-json'/);
  assert.match(sql, /INSERT INTO `f__sink`/);
  assert.doesNotMatch(sql, /`pq__sink`/);
  assert.match(sql, /-- sink pq: left out/);
  assert.match(sql, /INSERT INTO `raw__sink`/);
});
