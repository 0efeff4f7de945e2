// Name resolution: duplicate statements, unknown sources/views/sinks/catalogs/columns with
// suggestions, ambiguous and qualified columns in joins, `t.*`, view order and cycles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { at, check, diag, kafkaSource, op } from './helpers.ts';

const orders = kafkaSource('orders', 'id BIGINT NOT NULL, customer_id BIGINT, amount DECIMAL(10, 2), ts TIMESTAMP(3)');
const payments = kafkaSource('payments', 'id BIGINT NOT NULL, order_id BIGINT, paid DECIMAL(10, 2), ts TIMESTAMP(3)');

test('a name declared twice is an error pointing at the second declaration', async () => {
  const c = await check(`${orders}CREATE VIEW orders AS SELECT id FROM orders;`);
  // orders is declared on line 1; the view repeats it on line 5 col 13.
  assert.deepEqual(at(c, 'duplicate-name'), ['5:13']);
  assert.equal(diag(c, 'duplicate-name').labels[0]!.span.start.line, 1);
});

test('an unknown source suggests the closest name', async () => {
  const c = await check(`${orders}CREATE VIEW v AS SELECT id FROM ordres;`);
  assert.deepEqual(at(c, 'unknown-relation'), ['5:33']);
  assert.equal(diag(c, 'unknown-relation').help, "did you mean 'orders'?");
});

test('an unknown column suggests the closest column', async () => {
  const c = await check(`${orders}CREATE VIEW v AS SELECT amuont FROM orders;`);
  assert.deepEqual(at(c, 'unknown-column'), ['5:25']);
  assert.equal(diag(c, 'unknown-column').help, "did you mean 'amount'?");
});

test('a column in both sides of a join is ambiguous unless qualified', async () => {
  const c = await check(`${orders}${payments}CREATE VIEW v AS SELECT id FROM orders o JOIN payments p
  ON o.id = p.order_id AND o.ts BETWEEN p.ts - INTERVAL '1' MINUTE AND p.ts;`);
  assert.deepEqual(c.errors, ['ambiguous-column']);
  assert.match(diag(c, 'ambiguous-column').message, /exists in o, p/);
});

test('qualified columns and t.* resolve per side; repeated names get a suffix as in Flink', async () => {
  const c = await check(`${orders}${payments}CREATE VIEW v AS SELECT o.*, p.id, p.paid FROM orders o JOIN payments p
  ON o.id = p.order_id AND o.ts BETWEEN p.ts - INTERVAL '1' MINUTE AND p.ts;`);
  assert.deepEqual(c.codes, []);
  const proj = op(c.plan, 'v/project');
  assert.deepEqual(proj.schema.map((x) => x.name), ['id', 'customer_id', 'amount', 'ts', 'id0', 'paid']);
  assert.ok(proj.op === 'project');
  // p.id is the join's second `id`, renamed id0 in the join output.
  assert.deepEqual(proj.exprs[4]!.expr, { kind: 'col', input: 0, name: 'id0', type: { kind: 'bigint', nullable: false } });
});

test('an unknown qualifier suggests an alias of the FROM clause', async () => {
  const c = await check(`${orders}CREATE VIEW v AS SELECT x.id FROM orders AS o;`);
  assert.deepEqual(at(c, 'unknown-qualifier'), ['5:25']);
});

test('views may read views declared later; a cycle is an error', async () => {
  const ok = await check(`${orders}CREATE VIEW b AS SELECT id FROM a;\nCREATE VIEW a AS SELECT id FROM orders;`);
  assert.deepEqual(ok.codes, []);
  assert.deepEqual(ok.plan!.operators.map((o) => o.id), ['a/scan', 'a/project', 'b/project']);
  const cyc = await check(`${orders}CREATE VIEW b AS SELECT id FROM a;\nCREATE VIEW a AS SELECT id FROM b;`);
  assert.deepEqual(cyc.errors, ['view-cycle']);
});

test('reading a sink, or sending late events to a view, names the wrong kind of object', async () => {
  const c = await check(`${orders}CREATE SINK s FROM orders WITH (connector = 'stdout');
CREATE VIEW v AS SELECT id FROM s;`);
  assert.deepEqual(c.errors, ['wrong-relation-kind']);
  const late = await check(`${orders}CREATE VIEW w AS SELECT id FROM orders;
CREATE VIEW v AS SELECT window_start, COUNT(*) AS n FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
GROUP BY window_start, window_end ON LATE TO w;`);
  assert.deepEqual(late.errors, ['wrong-relation-kind']);
});

test('an unknown ON LATE target suggests a sink', async () => {
  const c = await check(`${orders}CREATE SINK late_orders WITH (connector = 'stdout');
CREATE VIEW v AS SELECT window_start, COUNT(*) AS n FROM TUMBLE(orders, ts, INTERVAL '1' MINUTE)
GROUP BY window_start, window_end ON LATE TO late_order;`);
  assert.deepEqual(c.errors, ['unknown-relation']);
  assert.equal(diag(c, 'unknown-relation').help, "did you mean 'late_orders'?");
  // The sink then receives nothing: warned.
  assert.deepEqual(c.codes.filter((x) => x === 'late-target-unused'), ['late-target-unused']);
});

test('an Iceberg sink names an unknown catalog', async () => {
  const c = await check(`${orders}CREATE CATALOG lake WITH (type = 'filesystem');
CREATE SINK s FROM orders WITH (connector = 'iceberg', catalog = 'laek', table = 'a.b');`);
  assert.deepEqual(c.errors, ['unknown-catalog']);
  assert.equal(diag(c, 'unknown-catalog').help, "did you mean 'lake'?");
});

test('identifiers are case-insensitive; quoted ones keep case', async () => {
  const c = await check(`${orders}CREATE VIEW v AS SELECT ID, Amount FROM ORDERS;`);
  assert.deepEqual(c.codes, []);
  assert.deepEqual(op(c.plan, 'v/project').schema.map((x) => x.name), ['id', 'amount']);
  const q = await check(`${orders}CREATE VIEW v AS SELECT "ID" FROM orders;`);
  assert.deepEqual(q.errors, ['unknown-column']);
});
