// Sources and option tables: required and unknown options, typed values, schemas, watermarks,
// Kafka keys, datagen fields, CDC keys, and pipeline/view options.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import { at, check, diag, stubSchemas } from './helpers.ts';

test('a kafka source without topic, with a misspelt option and a bad duration reports all three', async () => {
  const c = await check(`CREATE SOURCE s (a INT) WITH (
  connector = 'kafka',
  startup = 'earliest',
  idle_timout = '30 s',
  group_id = 'g'
);
CREATE SOURCE s2 (a INT) WITH (connector = 'kafka', topic = 'x', idle_timeout = '30');`);
  assert.deepEqual(c.errors.sort(), ['invalid-option-value', 'missing-option', 'unknown-option']);
  assert.deepEqual(at(c, 'unknown-option'), ['4:3']);
  assert.equal(diag(c, 'unknown-option').help, "did you mean 'idle_timeout'?");
  assert.deepEqual(at(c, 'missing-option'), ['1:15']);
  assert.deepEqual(at(c, 'invalid-option-value'), ['7:81']);
});

test('enum and boolean option values are checked', async () => {
  const c = await check(`CREATE SOURCE s (a INT) WITH (connector = 'kafka', topic = 'x', startup = 'oldest', format = 'xml');
CREATE SOURCE f (a INT) WITH (connector = 'file', path = 'x.ndjson', follow = 'maybe');`);
  assert.deepEqual(c.errors, ['invalid-option-value', 'invalid-option-value', 'invalid-option-value']);
});

test('an unknown connector suggests the closest; a missing one is reported', async () => {
  const c = await check(`CREATE SOURCE s (a INT) WITH (connector = 'kafak', topic = 'x');
CREATE SOURCE t (a INT) WITH (topic = 'x');`);
  assert.deepEqual(c.errors, ['unknown-connector', 'missing-connector']);
  assert.equal(diag(c, 'unknown-connector').help, "did you mean 'kafka'?");
});

test('a source with neither columns nor schema is an error', async () => {
  const c = await check(`CREATE SOURCE s WITH (connector = 'kafka', topic = 'x');`);
  assert.deepEqual(c.errors, ['source-without-columns']);
});

test('columns come from the schema file when none are declared (real Avro schema)', async () => {
  const c = await check(`CREATE SOURCE s WITH (connector = 'kafka', topic = 'orders', format = 'avro', schema = 'file:schemas/orders.avsc');`);
  assert.deepEqual(c.codes, []);
  const src = c.plan!.sources[0]!;
  assert.deepEqual(src.columns.map((x) => x.name), ['order_id', 'customer_id', 'amount', 'order_ts', 'status', 'coupon']);
  assert.deepEqual(src.columns[2]!.type, T.decimal(12, 2, false));
  assert.ok(src.schemaText && src.schemaText.length > 0);
});

test('declared columns are checked against the schema (real Avro schema)', async () => {
  const c = await check(`CREATE SOURCE s (order_id STRING NOT NULL, amount DOUBLE, nope INT)
WITH (connector = 'kafka', topic = 'orders', format = 'avro', schema = 'file:schemas/orders.avsc');`);
  assert.deepEqual(c.errors.sort(), ['schema-column-missing', 'schema-column-type-mismatch']);
});

test('checker with a stub schema: a watermark-only column list keeps the schema columns', async () => {
  const schemas = stubSchemas([
    { name: 'user_id', type: T.string(false) },
    { name: 'event_time', type: T.timestampLtz(3, false) },
  ]);
  const c = await check(
    `CREATE SOURCE clicks (WATERMARK FOR event_time AS event_time - INTERVAL '10' SECOND)
WITH (connector = 'kafka', topic = 'clicks', format = 'json', schema = 'file:any.json', idle_timeout = '1 min');`,
    schemas,
  );
  assert.deepEqual(c.codes, []);
  const src = c.plan!.sources[0]!;
  assert.deepEqual(src.columns.map((x) => x.name), ['user_id', 'event_time']);
  assert.deepEqual(src.watermark, { column: 'event_time', delayMs: 10_000, idleTimeoutMs: 60_000 });
});

test('watermark rules: timestamp column, `col - INTERVAL` shape', async () => {
  const c = await check(`CREATE SOURCE s (a INT, ts TIMESTAMP(3), WATERMARK FOR a AS a) WITH (connector = 'kafka', topic = 'x');
CREATE SOURCE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts + INTERVAL '5' SECOND) WITH (connector = 'kafka', topic = 'x');
CREATE SOURCE u (ts TIMESTAMP(3), WATERMARK FOR tss AS tss) WITH (connector = 'kafka', topic = 'x');`);
  assert.deepEqual(c.errors, ['watermark-column-type', 'watermark-expr', 'unknown-column']);
  assert.deepEqual(at(c, 'watermark-column-type'), ['1:56']);
});

test('the kafka key names columns; unknown ones suggest', async () => {
  const c = await check(`CREATE SOURCE s (customer_id BIGINT, a INT) WITH (connector = 'kafka', topic = 'x', key = 'custmer_id');`);
  assert.deepEqual(c.errors, ['unknown-column']);
  assert.equal(diag(c, 'unknown-column').help, "did you mean 'customer_id'?");
  const ok = await check(`CREATE SOURCE s (customer_id BIGINT, a INT) WITH (connector = 'kafka', topic = 'x', key = 'customer_id, a');`);
  assert.deepEqual(ok.plan!.sources[0]!.messageKey, ['customer_id', 'a']);
});

test('datagen fields: unknown column, choice without values; cardinality of a choice', async () => {
  const c = await check(`CREATE SOURCE g (page STRING, n INT) WITH (
  connector = 'datagen', total_rows = 10,
  fields.pagee.kind = 'choice',
  fields.n.kind = 'choice',
  fields.n.min = 5, fields.n.max = 1
);`);
  assert.deepEqual(c.errors, ['datagen-unknown-field', 'datagen-field-invalid', 'datagen-field-invalid']);
  assert.equal(diag(c, 'datagen-unknown-field').help, "did you mean 'page'?");
  const ok = await check(`CREATE SOURCE g (page STRING) WITH (connector = 'datagen', fields.page.kind = 'choice', fields.page.values = '/a,/b,/c');`);
  assert.deepEqual(ok.codes, []);
  assert.equal(ok.plan!.sources[0]!.columns[0]!.cardinalityHint, 3);
});

test('a postgres-cdc source is a changelog keyed by its primary key; columns from the catalog (stub loader)', async () => {
  const schemas = stubSchemas([{ name: 'id', type: T.bigint(false) }, { name: 'name', type: T.string() }], ['id']);
  const c = await check(`CREATE SOURCE customers WITH (connector = 'postgres-cdc', dsn = 'postgres://x', table = 'public.customers', snapshot = 'initial');`, schemas);
  assert.deepEqual(c.codes, []);
  const s = c.plan!.sources[0]!;
  assert.equal(s.changelog, 'changelog');
  assert.deepEqual(s.primaryKey, ['id']);
  assert.deepEqual(s.columns.map((x) => x.name), ['id', 'name']);
});

test('pipeline and view options are typed; checkpoint_interval defaults to 30 s', async () => {
  const c = await check(`PIPELINE p WITH (checkpoint_interval = '1 min', paralelism = 4);`);
  assert.deepEqual(c.errors, ['unknown-option']);
  assert.equal(c.plan!.pipeline.checkpointIntervalMs, 60_000);
  const d = await check(`CREATE SOURCE s (a INT) WITH (connector = 'kafka', topic = 'x');`);
  assert.equal(d.plan!.pipeline.checkpointIntervalMs, 30_000);
  assert.equal(d.plan!.pipeline.name, 'test');
  const v = await check(`CREATE SOURCE s (a INT) WITH (connector = 'kafka', topic = 'x');
CREATE VIEW v WITH (state_ttl = 'forever') AS SELECT a FROM s;`);
  assert.deepEqual(v.errors, ['invalid-option-value']);
});

test('an option set twice is an error', async () => {
  const c = await check(`CREATE SOURCE s (a INT) WITH (connector = 'kafka', topic = 'x', topic = 'y');`);
  assert.deepEqual(c.errors, ['duplicate-option']);
});

test('datagen bounds must fit their column: numbers, timestamps, duration steps', async () => {
  const c = await check(`CREATE SOURCE g (n INT, ts TIMESTAMP(3)) WITH (connector = 'datagen',
  fields.n.kind = 'random', fields.n.min = 'low',
  fields.ts.kind = 'sequence', fields.ts.min = '2026-13-01 00:00:00', fields.ts.step = '30 parsecs');`);
  assert.deepEqual(c.errors, ['datagen-field-invalid', 'datagen-field-invalid', 'datagen-field-invalid']);
  const ok = await check(`CREATE SOURCE g (n INT, ts TIMESTAMP(3)) WITH (connector = 'datagen',
  fields.n.min = 1, fields.n.max = 9, fields.ts.min = '2026-01-01 00:00:00', fields.ts.step = '30 ms');`);
  assert.deepEqual(ok.codes, []);
});

test('the options the runtime connectors read are accepted and typed (batching, retries, dedup, fetch size, dead letters)', async () => {
  const ok = await check(`PIPELINE p WITH (dead_letter_path = 'dl/p.ndjson');
CREATE SOURCE s (a INT) WITH (connector = 'kafka', topic = 'x', fetch.max_bytes = 65536);
CREATE SOURCE c (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (connector = 'postgres-cdc', dsn = 'postgres://h/db', table = 'public.t', snapshot.fetch_size = 1000, reconnect_timeout = '1 min');
CREATE SINK ch FROM s WITH (connector = 'clickhouse', table = 'db.t', batch_size = 10000, flush_interval = '1 s', max_attempts = 6, retry_backoff = '200 ms', max_retry_backoff = '10 s', dedup = 'token');
CREATE SINK k FROM s WITH (connector = 'kafka', topic = 'o', delivery = 'exactly-once', transactional_id = 'tx-1');`);
  assert.deepEqual(ok.errors, []);
  const bad = await check(`CREATE SOURCE s (a INT) WITH (connector = 'kafka', topic = 'x', fetch.max_bytes = '1 MB');
CREATE SINK ch FROM s WITH (connector = 'clickhouse', table = 'db.t', batch_size = 0, dedup = 'maybe');`);
  assert.deepEqual(bad.errors, ['invalid-option-value', 'invalid-option-value', 'invalid-option-value']);
});
