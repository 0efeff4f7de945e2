// scale_out = 'partitions': the option reaches the IR as the checked lower-case value, and the
// checker refuses what per-partition tasks cannot run (one error per offending source, join or
// aggregation, at its span, pointing back at the option), while aligned keys compile cleanly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lintPipeline } from '../../../src/lint/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { at, check, diag, type Checked } from './helpers.ts';

const PIPELINE = "PIPELINE p WITH (scale_out = 'partitions');\n"; // line 1; the value starts at 1:30

/** Line 2..6: a Kafka topic keyed by customer_id. */
const ORDERS = `CREATE SOURCE orders (
  order_id STRING NOT NULL, customer_id BIGINT, status STRING, amount DECIMAL(12, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'orders', key = 'customer_id', idle_timeout = '30 s');
`;

const so = (body: string): Promise<Checked> => check(PIPELINE + body);

/** The lint warnings a plan would get on top of the checker's diagnostics. */
function lintCodes(c: Checked): string[] {
  const bag = new DiagnosticBag();
  lintPipeline(c.plan!, bag);
  return bag.items.map((d) => d.code);
}

test("aligned keys compile: windows, GROUP BY, SESSION, a union of one source, and stateless sinks; the IR carries 'partitions'", async () => {
  const c = await check(`PIPELINE p WITH (scale_out = 'Partitions');
${ORDERS}CREATE VIEW by_customer AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, status, window_start, window_end ON LATE DROP;
CREATE VIEW renamed AS SELECT customer_id AS cust, amount, ts FROM orders WHERE amount > 0;
CREATE VIEW totals WITH (state_ttl = '1 d') AS SELECT cust, COUNT(*) AS n FROM renamed GROUP BY cust EMIT CHANGES;
CREATE VIEW sessions AS
SELECT customer_id, COUNT(*) AS n
FROM SESSION(orders PARTITION BY customer_id, ts, INTERVAL '5' MINUTE)
GROUP BY customer_id, window_start, window_end ON LATE DROP;
CREATE VIEW both_halves AS
SELECT customer_id, amount, ts FROM orders WHERE amount > 100
UNION ALL
SELECT customer_id, amount, ts FROM orders WHERE amount < 0;
CREATE VIEW hopping AS
SELECT customer_id, window_start, window_end, COUNT(*) AS n
FROM HOP(both_halves, ts, INTERVAL '10' SECOND, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end ON LATE DROP;
CREATE SINK s1 FROM by_customer WITH (connector = 'stdout');
CREATE SINK s2 FROM totals WITH (connector = 'stdout');
CREATE SINK s3 FROM sessions WITH (connector = 'stdout');
CREATE SINK s4 FROM hopping WITH (connector = 'stdout');
CREATE SINK raw AS SELECT order_id, amount FROM orders WHERE status = 'paid' WITH (connector = 'stdout');
`);
  assert.deepEqual(c.errors, []);
  // What the runtime reads: the checked value, lower-cased, with no template left to substitute.
  assert.deepEqual(c.plan!.pipeline.options['scale_out'], { value: 'partitions', template: 'partitions', envVars: [] });
  assert.deepEqual(lintCodes(c).filter((x) => x.startsWith('group-key')), []);
});

test("scale_out takes 'none' or 'partitions'; without 'partitions' nothing is refused and the lint still warns", async () => {
  const bad = await check("PIPELINE p WITH (scale_out = 'tasks');");
  assert.deepEqual(at(bad, 'invalid-option-value'), ['1:30']);
  assert.match(diag(bad, 'invalid-option-value').message, /'none', 'partitions'/);
  assert.equal(bad.plan!.pipeline.options['scale_out'], undefined);

  const none = await check(`PIPELINE p WITH (scale_out = 'none');
${ORDERS}CREATE VIEW v AS SELECT status, window_start, window_end, COUNT(*) AS n FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
GROUP BY status, window_start, window_end ON LATE DROP;`);
  assert.deepEqual(none.errors, []);
  assert.equal(none.plan!.pipeline.options['scale_out']!.value, 'none');
  assert.deepEqual(lintCodes(none).filter((x) => x.startsWith('group-key')), ['group-key-not-message-key']);
});

test('a second source is refused at its name; a file source at its connector', async () => {
  const c = await so(`${ORDERS}CREATE SOURCE clicks (u BIGINT, ts TIMESTAMP(3)) WITH (connector = 'kafka', topic = 'clicks', key = 'u');
CREATE SOURCE events (u BIGINT) WITH (connector = 'file', path = 'events.ndjson');
CREATE SINK a AS SELECT order_id FROM orders WITH (connector = 'stdout');
CREATE SINK b AS SELECT u FROM clicks WITH (connector = 'stdout');
CREATE SINK e AS SELECT u FROM events WITH (connector = 'stdout');
`);
  assert.deepEqual(c.errors, ['scale-out-source', 'scale-out-source']);
  assert.deepEqual(at(c, 'scale-out-source'), ['6:15', '7:51']);
  const [second, file] = c.diags.filter((d) => d.code === 'scale-out-source');
  assert.match(second!.message, /'clicks' is a second source \(the pipeline also reads 'orders'; state of several sources is not partition-scoped yet\)/);
  assert.match(file!.message, /'events' is a file source, which has no Kafka partitions to share and is a second source/);
  // Every error points back at the option that asks for partition tasks.
  assert.deepEqual(second!.labels.map((l) => `${l.span.start.line}:${l.span.start.column}`), ['1:30']);
});

test('a source that nothing reads is not refused (the runtime does not run it)', async () => {
  const c = await so(`${ORDERS}CREATE SOURCE unused (u BIGINT) WITH (connector = 'datagen');
CREATE SINK a AS SELECT order_id FROM orders WITH (connector = 'stdout');
`);
  assert.deepEqual(c.errors, []);
});

test('a datagen source alone is refused', async () => {
  const c = await so(`CREATE SOURCE g (u BIGINT) WITH (connector = 'datagen', total_rows = '10');
CREATE SINK a AS SELECT u FROM g WITH (connector = 'stdout');
`);
  assert.deepEqual(at(c, 'scale-out-source'), ['2:46']);
});

test('joins are refused at the join, even of one source with itself; the aggregate after it is not reported again', async () => {
  const c = await so(`${ORDERS}CREATE VIEW pairs AS
SELECT a.customer_id, a.ts, a.amount FROM orders a JOIN orders b
ON a.customer_id = b.customer_id AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' MINUTE;
CREATE VIEW agg AS SELECT customer_id, window_start, window_end, COUNT(*) AS n FROM TUMBLE(pairs, ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end ON LATE DROP;
CREATE SINK s FROM agg WITH (connector = 'stdout');
`);
  assert.deepEqual(c.errors, ['scale-out-join']);
  assert.deepEqual(at(c, 'scale-out-join'), ['7:43']);
  assert.match(diag(c, 'scale-out-join').message, /view 'pairs' holds an interval join/);
});

test('a temporal join against a second (changelog) source: the source and the join', async () => {
  const c = await so(`${ORDERS}CREATE SOURCE customers (id BIGINT NOT NULL, name STRING, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts)
WITH (connector = 'kafka', topic = 'customers', format = 'debezium-json', key = 'id');
CREATE SINK s AS SELECT o.order_id, c.name FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.ts AS c ON o.customer_id = c.id
WITH (connector = 'stdout');
`);
  assert.deepEqual(c.errors, ['scale-out-source', 'scale-out-join']);
  assert.deepEqual(at(c, 'scale-out-source'), ['6:15']);
  assert.deepEqual(at(c, 'scale-out-join'), ['8:49']);
  assert.match(diag(c, 'scale-out-join').message, /temporal join/);
});

test('GROUP BY other columns than the message key: an error at the SELECT, and no lint on top', async () => {
  const c = await so(`${ORDERS}CREATE VIEW by_status AS
SELECT status, window_start, window_end, COUNT(*) AS n FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
GROUP BY status, window_start, window_end ON LATE DROP;
CREATE SINK s FROM by_status WITH (connector = 'stdout');
`);
  assert.deepEqual(c.errors, ['scale-out-key-not-message-key']);
  assert.deepEqual(at(c, 'scale-out-key-not-message-key'), ['7:1']);
  const d = diag(c, 'scale-out-key-not-message-key');
  assert.match(d.message, /view 'by_status' groups by \(status\), but topic of source 'orders' is keyed by \(customer_id\)/);
  assert.equal(d.help, "produce the topic keyed by the grouping columns and declare key = 'status' on source 'orders', or group by customer_id as well");
  assert.deepEqual(lintCodes(c).filter((x) => x.startsWith('group-key')), []);
});

test('a key computed from the message key column does not determine it', async () => {
  const c = await so(`${ORDERS}CREATE VIEW v WITH (state_ttl = '1 h') AS SELECT customer_id % 10 AS bucket, COUNT(*) AS n FROM orders GROUP BY customer_id % 10 EMIT CHANGES;
`);
  assert.deepEqual(c.errors, ['scale-out-key-not-message-key']);
  assert.deepEqual(at(c, 'scale-out-key-not-message-key'), ['6:43']);
});

test('a global aggregate (no GROUP BY keys) is refused', async () => {
  const c = await so(`${ORDERS}CREATE VIEW total AS SELECT window_start, window_end, SUM(amount) AS revenue FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
GROUP BY window_start, window_end ON LATE DROP;
`);
  assert.deepEqual(at(c, 'scale-out-key-not-message-key'), ['6:22']);
  assert.match(diag(c, 'scale-out-key-not-message-key').message, /aggregates without grouping keys/);
  assert.match(diag(c, 'scale-out-key-not-message-key').help!, /group by the message key columns/);
});

test('a topic without a declared message key cannot hold any aggregation', async () => {
  const c = await so(`${ORDERS.replace("key = 'customer_id', ", '')}CREATE VIEW v AS SELECT customer_id, window_start, window_end, COUNT(*) AS n FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end ON LATE DROP;
`);
  assert.deepEqual(at(c, 'scale-out-key-not-message-key'), ['6:18']);
  const d = diag(c, 'scale-out-key-not-message-key');
  assert.match(d.message, /keyed by nothing \(no key option\)/);
  assert.equal(d.help, "produce topic of source 'orders' keyed by the grouping columns and declare it with key = 'customer_id'");
});

test('SESSION windows are keyed by their PARTITION BY: without it (or with other columns) they are refused', async () => {
  const c = await so(`${ORDERS}CREATE VIEW v AS SELECT COUNT(*) AS n FROM SESSION(orders, ts, INTERVAL '5' MINUTE)
GROUP BY window_start, window_end ON LATE DROP;
CREATE VIEW w AS SELECT status, COUNT(*) AS n FROM SESSION(orders PARTITION BY status, ts, INTERVAL '5' MINUTE)
GROUP BY status, window_start, window_end ON LATE DROP;
`);
  assert.deepEqual(at(c, 'scale-out-key-not-message-key'), ['6:18', '8:18']);
  const [none, other] = c.diags.filter((d) => d.code === 'scale-out-key-not-message-key');
  assert.match(none!.message, /keeps one SESSION for all records \(no PARTITION BY\)/);
  assert.match(other!.message, /splits sessions by PARTITION BY \(status\)/);
});

test('a changelog topic keyed by another column than its primary key is refused at the key option', async () => {
  const cdc = (key: string): string => `CREATE SOURCE customers (id BIGINT NOT NULL, region STRING, PRIMARY KEY (id) NOT ENFORCED)
WITH (connector = 'kafka', topic = 'customers', format = 'debezium-json'${key});
CREATE VIEW per_region WITH (state_ttl = '1 d') AS SELECT id, COUNT(*) AS n FROM customers GROUP BY id EMIT CHANGES;
`;
  const wrong = await so(cdc(", key = 'region'"));
  assert.deepEqual(wrong.errors, ['scale-out-changelog-key', 'scale-out-key-not-message-key']);
  assert.deepEqual(at(wrong, 'scale-out-changelog-key'), ['3:81']);
  assert.match(diag(wrong, 'scale-out-changelog-key').message, /'customers' is keyed by \(region\) but its primary key is \(id\)/);
  assert.equal(diag(wrong, 'scale-out-changelog-key').help, "key the topic by its primary key where it is produced (Debezium does) and declare key = 'id'");

  const missing = await so(cdc(''));
  assert.deepEqual(at(missing, 'scale-out-changelog-key'), ['2:15']);

  const right = await so(cdc(", key = 'id'"));
  assert.deepEqual(right.errors, []);
});
