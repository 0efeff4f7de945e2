// Joins: interval bounds from BETWEEN and >=/<= pairs, temporal joins against a keyed
// changelog, and joins without a time bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import { check, diag, kafkaSource, op } from './helpers.ts';

const orders = kafkaSource('orders', 'order_id STRING NOT NULL, customer_id BIGINT NOT NULL, amount DECIMAL(10, 2), ts TIMESTAMP(3) NOT NULL');
const shipments = kafkaSource('shipments', 'order_id STRING NOT NULL, carrier STRING, ts TIMESTAMP(3) NOT NULL');
const customers = `CREATE SOURCE customers (
  id BIGINT NOT NULL, name STRING, country STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = 'postgres://x', table = 'public.customers');
`;

test('BETWEEN on the two event-time columns gives the interval bounds', async () => {
  const c = await check(`${orders}${shipments}CREATE VIEW v AS
SELECT o.order_id, s.carrier FROM orders o JOIN shipments s
  ON o.order_id = s.order_id AND o.ts BETWEEN s.ts - INTERVAL '5' MINUTE AND s.ts;`);
  assert.deepEqual(c.codes, []);
  const j = op(c.plan, 'v/join');
  assert.ok(j.op === 'interval_join');
  // o.ts - s.ts in [-5 min, 0]
  assert.equal(j.lowerMs, -300_000);
  assert.equal(j.upperMs, 0);
  assert.equal(j.leftTime, 'ts');
  assert.equal(j.rightTime, 'ts');
  assert.deepEqual(j.leftKeys, [{ kind: 'col', input: 0, name: 'order_id', type: T.string(false) }]);
  assert.deepEqual(j.rightKeys, [{ kind: 'col', input: 1, name: 'order_id', type: T.string(false) }]);
  assert.equal(j.residual, null);
  assert.deepEqual(j.stateBound, { kind: 'interval', retainMs: 300_000 });
  assert.deepEqual(j.inputs, ['v/scan', 'v/scan#2']);
  // The right side's ts is renamed ts0 in the join output; the left ts stays the event time.
  assert.equal(j.timeColumn, 'ts');
  assert.deepEqual(j.outputMap.map((m) => m.name), ['order_id', 'customer_id', 'amount', 'ts', 'order_id0', 'carrier', 'ts0']);
});

test('>= / < pairs written the other way round give the same kind of bounds', async () => {
  const c = await check(`${orders}${shipments}CREATE VIEW v AS
SELECT o.order_id FROM orders o JOIN shipments s
  ON s.order_id = o.order_id AND s.ts >= o.ts AND s.ts < o.ts + INTERVAL '1' HOUR AND s.carrier <> 'x';`);
  assert.deepEqual(c.codes, []);
  const j = op(c.plan, 'v/join');
  assert.ok(j.op === 'interval_join');
  // s.ts >= o.ts → o.ts - s.ts <= 0; s.ts < o.ts + 1 h → o.ts - s.ts > -1 h, i.e. >= -1 h + 1 ms.
  assert.equal(j.upperMs, 0);
  assert.equal(j.lowerMs, -3_600_000 + 1);
  assert.ok(j.residual && j.residual.kind === 'call' && j.residual.fn === 'ne');
});

test('a join without a time bound or state_ttl is an error', async () => {
  const c = await check(`${orders}${shipments}CREATE VIEW v AS SELECT o.order_id FROM orders o JOIN shipments s ON o.order_id = s.order_id;`);
  assert.deepEqual(c.errors, ['unbounded-join']);
  const one = await check(`${orders}${shipments}CREATE VIEW v AS SELECT o.order_id FROM orders o JOIN shipments s ON o.order_id = s.order_id AND o.ts >= s.ts;`);
  assert.deepEqual(one.errors, ['unbounded-join']);
});

test('a join bounded only by state_ttl is reported as not yet plannable', async () => {
  const c = await check(`${orders}${shipments}CREATE VIEW v WITH (state_ttl = '1 h') AS SELECT o.order_id FROM orders o JOIN shipments s ON o.order_id = s.order_id;`);
  assert.deepEqual(c.errors, ['join-ttl-unsupported']);
});

test('a temporal join against a CDC source keys on its primary key', async () => {
  const c = await check(`${orders}${customers}CREATE VIEW v AS
SELECT o.order_id, c.name, o.ts FROM orders AS o
JOIN customers FOR SYSTEM_TIME AS OF o.ts AS c ON o.customer_id = c.id;`);
  assert.deepEqual(c.codes, []);
  const j = op(c.plan, 'v/join');
  assert.ok(j.op === 'temporal_join');
  assert.deepEqual(j.rightKeys, ['id']);
  assert.deepEqual(j.leftKeys, [{ kind: 'col', input: 0, name: 'customer_id', type: T.bigint(false) }]);
  assert.equal(j.asOfColumn, 'ts');
  assert.equal(j.changelog, 'append');
  const scan = op(c.plan, 'v/scan#2');
  assert.equal(scan.changelog, 'retract');
  assert.deepEqual(scan.upsertKey, ['id']);
  assert.equal(op(c.plan, 'v/project').timeColumn, 'ts');
});

test('a temporal join needs a keyed changelog, the left event time, and the whole key in ON', async () => {
  const append = await check(`${orders}${shipments}CREATE VIEW v AS
SELECT o.order_id FROM orders AS o JOIN shipments FOR SYSTEM_TIME AS OF o.ts AS s ON o.order_id = s.order_id;`);
  assert.deepEqual(append.errors, ['temporal-join-invalid']);
  assert.match(diag(append, 'temporal-join-invalid').message, /must be a changelog with a primary key/);
  const notKey = await check(`${orders}${customers}CREATE VIEW v AS
SELECT o.order_id FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.ts AS c ON o.order_id = c.name;`);
  assert.deepEqual(notKey.errors, ['temporal-join-invalid']);
  assert.match(diag(notKey, 'temporal-join-invalid').message, /missing: id/);
  const notTime = await check(`${orders}${customers}CREATE VIEW v AS
SELECT o.order_id FROM orders AS o JOIN customers FOR SYSTEM_TIME AS OF o.customer_id AS c ON o.customer_id = c.id;`);
  assert.deepEqual(notTime.errors, ['temporal-join-invalid']);
});

test('an interval join on a changelog input is rejected', async () => {
  const c = await check(`${orders}CREATE SOURCE cdc (id BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts) WITH (connector = 'postgres-cdc', dsn = 'x', table = 't');
CREATE VIEW v AS SELECT o.order_id FROM orders o JOIN cdc c ON o.customer_id = c.id AND o.ts BETWEEN c.ts AND c.ts + INTERVAL '1' MINUTE;`);
  assert.deepEqual(c.errors, ['join-on-changelog']);
});

test('a temporal join keeps a comparison of the two event-time columns as its residual (it is no interval bound there)', async () => {
  const versioned = `CREATE SOURCE cust (
  id BIGINT NOT NULL, name STRING, updated_at TIMESTAMP(3) NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR updated_at AS updated_at
) WITH (connector = 'postgres-cdc', dsn = 'postgres://x', table = 'public.cust');
`;
  const c = await check(`${orders}${versioned}CREATE VIEW v AS
SELECT o.order_id, c.name, o.ts FROM orders AS o
JOIN cust FOR SYSTEM_TIME AS OF o.ts AS c ON o.customer_id = c.id AND o.ts >= c.updated_at + INTERVAL '1' MINUTE;`);
  assert.deepEqual(c.codes, []);
  const j = op(c.plan, 'v/join');
  assert.ok(j.op === 'temporal_join');
  assert.ok(j.residual && j.residual.kind === 'call' && j.residual.fn === 'ge', `the time comparison is the residual, got ${JSON.stringify(j.residual)}`);
});
