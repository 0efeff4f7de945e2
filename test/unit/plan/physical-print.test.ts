// `pipec plan --physical`: the three forms, a secret written inline never printed, `${VAR}`
// shown as written, and the resolved defaults a reviewer needs (delivery, acks, commit points).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFile } from '../../../src/build/compile.ts';
import { lowerPlan } from '../../../src/plan/physical/lower.ts';
import { printPhysicalDot, printPhysicalJson, printPhysicalText } from '../../../src/plan/physical/print.ts';

const SPEC = `
CREATE SOURCE s (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'datagen', total_rows = '10', idle_timeout = '5 s');
CREATE SINK k FROM s WITH (connector = 'kafka', topic = 't', acks = '1');
CREATE SINK e FROM s WITH (connector = 'kafka', topic = 'u', acks = '1', delivery = 'exactly-once');
CREATE SINK c FROM s WITH (connector = 'clickhouse', url = 'http://u:inline-secret@h:8123', table = 'db.t', password = 'inline-secret', user = '\${CH_USER}');
CREATE SINK c2 FROM s WITH (connector = 'clickhouse', table = 't2', order_by = 'ts', ttl = 'ts + INTERVAL 1 DAY');
`;

async function physical() {
  const r = await compileFile('p.pipe.sql', { cwd: '/', readText: () => SPEC, env: { get: (n) => ({ CH_USER: 'writer', PIPEC_KAFKA_BROKERS: 'b:1', PIPEC_CLICKHOUSE_URL: 'http://h:1' } as Record<string, string>)[n] } });
  assert.ok(r.plan && !r.diagnostics.hasErrors, r.diagnostics.sorted().map((d) => d.message).join('\n'));
  return lowerPlan(r.plan);
}

test('the text form shows resolved delivery, effective acks and commit points; secrets are masked in every form', async () => {
  const p = await physical();
  const text = printPhysicalText(p);
  // acks=1 gives a plain producer; exactly-once forces acks=all and idempotence, and commits after checkpoints.
  assert.match(text, /sink k \(kafka\)[^\n]*\n  config: acks=1, brokers=\$\{PIPEC_KAFKA_BROKERS\}, delivery=at-least-once, format=json, idempotent=false,/);
  assert.match(text, /sink e \(kafka\)[^\n]*\n  config: acks=all, [^\n]*delivery=exactly-once, [^\n]*idempotent=true,[^\n]*\n  commits: after each durable checkpoint/);
  assert.match(text, /dedup=auto, delivery=at-least-once, flushIntervalMs=1 s/);
  assert.match(text, /user=\$\{CH_USER\}/);
  for (const out of [text, printPhysicalJson(p), printPhysicalDot(p)]) assert.ok(!out.includes('inline-secret'), out);
  assert.match(text, /password=\*\*\*/);
  assert.equal(JSON.parse(printPhysicalJson(p)).physicalVersion, 4);
  assert.match(printPhysicalDot(p), /^digraph "p" \{/);
});

test("a source's value format: Avro with a registry subject is the Confluent wire, a datagen source has none", async () => {
  const r = await compileFile('p.pipe.sql', {
    cwd: '/',
    readText: () => `CREATE SOURCE a (id BIGINT) WITH (connector = 'kafka', topic = 'a', format = 'avro', schema = 'registry:a-value');
CREATE SOURCE g (id BIGINT) WITH (connector = 'datagen', total_rows = '1');
CREATE SINK k FROM a WITH (connector = 'kafka', topic = 'o');
CREATE SINK k2 FROM g WITH (connector = 'kafka', topic = 'o2');`,
    env: { get: (n) => ({ PIPEC_KAFKA_BROKERS: 'b:1', PIPEC_SCHEMA_REGISTRY_URL: 'http://r:1' } as Record<string, string>)[n] },
  });
  assert.ok(r.plan, r.diagnostics.sorted().map((d) => d.message).join('\n'));
  const p = lowerPlan(r.plan);
  assert.deepEqual(p.sources.map((s) => s.format), [{ kind: 'avro', wire: 'confluent', schema: 'registry:a-value' }, null]);
  assert.match(printPhysicalText(p), /source a \(kafka\)\n  config: [^\n]*\n  format: avro, confluent wire, schema registry:a-value\n/);
});

test('a ClickHouse sink shows the table it writes: a bare name in default, the sorting key, the TTL', async () => {
  const text = printPhysicalText(await physical());
  assert.match(text, /sink c \(clickhouse\)[^\n]*\n[^\n]*\n  commits: [^\n]*\n  table: db\.t, order by \(\)\n/);
  assert.match(text, /sink c2 \(clickhouse\)[^\n]*\n[^\n]*\n  commits: [^\n]*\n  table: default\.t2, order by \(ts\), ttl ts \+ INTERVAL 1 DAY\n/);
});

test('two lowerings of one plan print byte-identical text', async () => {
  assert.equal(printPhysicalJson(await physical()), printPhysicalJson(await physical()));
});

const LAKE = `
CREATE SOURCE o (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'kafka', topic = '\${ORDERS_TOPIC}', group_id = 'g1', startup = 'earliest');
CREATE CATALOG rest_lake WITH (type = 'rest', uri = 'https://u:inline-pw@cat.example/api', token = 'inline-token', warehouse = 'w1');
CREATE CATALOG env_lake WITH (type = 'rest', uri = 'https://cat.example/api', token = '\${LAKE_TOKEN}');
CREATE SINK l FROM o WITH (connector = 'iceberg', catalog = 'rest_lake', table = 'a.t');
CREATE COMPACTION POLICY keep ON l (EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY RETAIN LAST 5) SCHEDULE EVERY INTERVAL '1' HOUR;
`;

test('v3: a Kafka source carries its topic, the plan its catalogs (secrets masked) and compaction policies', async () => {
  const env: Record<string, string> = { ORDERS_TOPIC: 'orders-topic-value', LAKE_TOKEN: 'env-token-value' };
  const r = await compileFile('p.pipe.sql', { cwd: '/', readText: () => LAKE, env: { get: (n) => env[n] } });
  assert.ok(r.plan && !r.diagnostics.hasErrors, r.diagnostics.sorted().map((d) => d.message).join('\n'));
  const p = lowerPlan(r.plan);
  // The topic keeps its template (never the value); the group as given; brokers from the environment.
  assert.deepEqual(p.sources[0]!.topic, {
    topic: { text: '${ORDERS_TOPIC}', envVars: ['ORDERS_TOPIC'] },
    brokers: { text: '${PIPEC_KAFKA_BROKERS}', envVars: ['PIPEC_KAFKA_BROKERS'] },
    groupId: { text: 'g1', envVars: [] },
    startup: 'earliest',
    consumers: 1,
    registryUrl: { text: '${PIPEC_SCHEMA_REGISTRY_URL}', envVars: ['PIPEC_SCHEMA_REGISTRY_URL'] },
  });
  assert.deepEqual(p.catalogs.map((c) => [c.name, c.type, c.options.token]), [
    ['rest_lake', 'rest', { text: 'inline-token', envVars: [] }],
    ['env_lake', 'rest', { text: '${LAKE_TOKEN}', envVars: ['LAKE_TOKEN'] }],
  ]);
  assert.deepEqual(p.compactions, [{ name: 'keep', sink: 'l', actions: [{ kind: 'expire_snapshots', olderThanMs: 7 * 86_400_000, retainLast: 5 }], scheduleMs: 3_600_000 }]);
  const text = printPhysicalText(p);
  const json = printPhysicalJson(p);
  for (const out of [text, json]) {
    for (const secret of ['inline-pw', 'inline-token', 'env-token-value', 'orders-topic-value']) assert.ok(!out.includes(secret), `${secret} in\n${out}`);
  }
  assert.match(text, /^catalog rest_lake \(rest\): token=\*\*\*, uri=https:\/\/u:\*\*\*@cat\.example\/api, warehouse=w1$/m);
  assert.match(text, /^catalog env_lake \(rest\): token=\$\{LAKE_TOKEN\}, uri=https:\/\/cat\.example\/api$/m);
  assert.match(text, /^compaction keep of sink l: expire_snapshots; every 1 h$/m);
  assert.equal(JSON.parse(json).catalogs[0].options.token.text, '***');
});

test('a SESSION is keyed by its PARTITION BY key, and not keyed without one (one session sequence over every row)', async () => {
  const spec = (partition: string) => `
CREATE SOURCE ev (u BIGINT, page STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH (connector = 'datagen', total_rows = '10', idle_timeout = '5 s');
CREATE VIEW s AS SELECT u, page, window_start, COUNT(*) AS n FROM SESSION(ev ${partition}ts, INTERVAL '5' SECOND) GROUP BY u, page, window_start, window_end;
CREATE SINK out FROM s WITH (connector = 'stdout');
`;
  const keyed = async (partition: string) => {
    const text = spec(partition);
    const r = await compileFile('p.pipe.sql', { cwd: '/', readText: () => text, env: { get: () => undefined } });
    assert.ok(r.plan && !r.diagnostics.hasErrors, r.diagnostics.sorted().map((d) => d.message).join('\n'));
    return lowerPlan(r.plan).operators.filter((o) => o.op === 'window_agg').map((o) => o.partitionKey);
  };
  assert.deepEqual(await keyed('PARTITION BY u, '), [['u']]);
  assert.deepEqual(await keyed(', '), [null]);
});
