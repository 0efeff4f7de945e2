// Event-time temporal join end to end with the real PostgreSQL and Kafka: order events on a
// Kafka topic joined `FOR SYSTEM_TIME AS OF o.order_ts` with a PostgreSQL CDC changelog of
// customers (no WATERMARK on it: each change's version time is its commit time, snapshot rows
// are valid since ever), written to an NDJSON file. The customers change while the pipeline
// runs; the test brackets every commit with the clock before and after it and places orders
// 300 ms before or after, so the expected customer of every order follows by hand from the
// change history below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { ensureServices } from '../../support/services.ts';
import { cleanup, pgClient, unique } from '../postgres-cdc/harness.ts';
import { createTopic, produce } from '../kafka/helpers.ts';
import { ndjson, startPipeline, until } from '../runtime-cdc/harness.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The spec's join (specs/customer_orders_cdc.pipe.sql) with an NDJSON file sink and test names. */
const spec = (table: string, slot: string, pub: string, topic: string, group: string): string => `
PIPELINE temporal_it WITH (checkpoint_interval = '1 s');

CREATE SOURCE customers (
  id          BIGINT NOT NULL,
  name        STRING NOT NULL,
  email       STRING,
  country     STRING NOT NULL,
  tier        STRING NOT NULL,
  updated_at  TIMESTAMP(6) NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '\${PIPEC_PG_URL}', table = 'public.${table}', slot = '${slot}',
        publication = '${pub}', snapshot = 'initial', heartbeat = '1 s');

CREATE SOURCE order_events (
  order_id     STRING NOT NULL,
  customer_id  BIGINT NOT NULL,
  amount       DECIMAL(12, 2) NOT NULL,
  currency     STRING NOT NULL,
  order_ts     TIMESTAMP(3) NOT NULL,
  WATERMARK FOR order_ts AS order_ts - INTERVAL '2' SECOND
) WITH (connector = 'kafka', topic = '${topic}', brokers = '\${PIPEC_KAFKA_BROKERS}', group_id = '${group}',
        format = 'json', key = 'customer_id', startup = 'earliest');

CREATE VIEW enriched_orders AS
SELECT o.order_id, o.customer_id, c.name AS customer_name, c.country, c.tier,
       o.amount, o.currency, o.order_ts
FROM order_events AS o
JOIN customers FOR SYSTEM_TIME AS OF o.order_ts AS c
  ON o.customer_id = c.id;

CREATE SINK out FROM enriched_orders WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

interface Commit {
  before: number;
  after: number;
}

test('Kafka orders ⋈ PostgreSQL CDC customers FOR SYSTEM_TIME AS OF order_ts: each order gets the customer row valid at its time', async (t) => {
  const env = await ensureServices(['postgres', 'kafka']);
  const url = env.PIPEC_PG_URL!;
  const [table, slot, pub, group] = [unique('tj_customers'), unique('slot'), unique('pub'), unique('tj_group')];
  const topic = await createTopic(1, 'tj-orders');
  const c = await pgClient(url);
  await c.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, name text NOT NULL, email text, country text NOT NULL, tier text NOT NULL, updated_at timestamp(6) NOT NULL DEFAULT now())`);
  // The snapshot: valid since ever.
  await c.query(`INSERT INTO ${table} (id, name, email, country, tier) VALUES (1, 'ann', 'ann@x', 'DE', 'silver'), (2, 'bob', NULL, 'FR', 'gold'), (3, 'cy', 'cy@x', 'US', 'bronze')`);
  const p = await startPipeline(spec(table, slot, pub, topic, group), env);
  t.after(async () => {
    await p.stop();
    await c.end();
    await cleanup(url, table, slot, pub);
  });
  const out = (): Record<string, unknown>[] => ndjson(path.join(p.dir, 'out.ndjson'));

  /** Runs `sql` as one transaction; its commit time lies between `before` and `after`. */
  const commit = async (sql: string): Promise<Commit> => {
    const before = Date.now();
    await c.query(sql);
    const after = Date.now();
    await sleep(1200); // keeps the next commit well clear of orders placed 300 ms after this one
    return { before, after };
  };
  await sleep(1500); // the slot exists (snapshot taken) before the changes below
  const c1 = await commit(`UPDATE ${table} SET tier = 'gold', country = 'AT', updated_at = now() WHERE id = 1`);
  const c2 = await commit(`INSERT INTO ${table} (id, name, email, country, tier) VALUES (4, 'dan', NULL, 'NL', 'silver')`);
  const c3 = await commit(`DELETE FROM ${table} WHERE id = 2`);
  // One transaction: a tier change and a primary key change (3 becomes 5: -D 3, +I 5).
  const c4 = await commit(`BEGIN; UPDATE ${table} SET tier = 'platinum' WHERE id = 1; UPDATE ${table} SET id = 5 WHERE id = 3; COMMIT`);

  // Orders in time order (one partition, none later than the 2 s watermark delay).
  const order = (id: string, customer: number, ts: number): { id: string; customer: number; ts: number } => ({ id, customer, ts });
  const orders = [
    order('o-ancient', 1, Date.UTC(2020, 0, 1)), // before any change: the snapshot row
    order('o-1-before-c1', 1, c1.before - 300),
    order('o-1-after-c1', 1, c1.after + 300),
    order('o-4-before-c2', 4, c2.before - 300), // dan not inserted yet: no match
    order('o-4-after-c2', 4, c2.after + 300),
    order('o-2-before-c3', 2, c3.before - 300),
    order('o-2-after-c3', 2, c3.after + 300), // bob deleted: no match
    order('o-3-before-c4', 3, c4.before - 300),
    order('o-5-before-c4', 5, c4.before - 300), // id 5 does not exist yet
    order('o-1-after-c4', 1, c4.after + 300),
    order('o-3-after-c4', 3, c4.after + 300), // 3 became 5: no match
    order('o-5-after-c4', 5, c4.after + 300),
    // Moves the orders' watermark (ts - 2 s) past every order above; customer 999 never exists.
    order('o-flush', 999, c4.after + 300 + 2001),
  ];
  await produce(
    topic,
    0,
    orders.map((o) => JSON.stringify({ order_id: o.id, customer_id: o.customer, amount: '12.50', currency: 'EUR', order_ts: o.ts })),
  );
  // By hand from the history: snapshot {1 ann DE silver, 2 bob FR gold, 3 cy US bronze};
  // c1: 1 → AT gold; c2: +4 dan NL silver; c3: -2; c4: 1 → AT platinum, 3 → 5 (cy US bronze).
  const expected = [
    'o-ancient 1 ann DE silver',
    'o-1-before-c1 1 ann DE silver',
    'o-1-after-c1 1 ann AT gold',
    'o-4-after-c2 4 dan NL silver',
    'o-2-before-c3 2 bob FR gold',
    'o-3-before-c4 3 cy US bronze',
    'o-1-after-c4 1 ann AT platinum',
    'o-5-after-c4 5 cy US bronze',
  ];
  const seen = (): string[] => out().map((r) => `${r.order_id} ${r.customer_id} ${r.customer_name} ${r.country} ${r.tier}`);
  // The customers side counts as caught up 5 s after its last change (idle): then all come out.
  await until(() => seen().length >= expected.length, () => ({ out: seen(), stderr: p.stderr() }));
  assert.deepEqual(seen(), expected);
  const first = out()[0]!;
  assert.deepEqual({ amount: first.amount, currency: first.currency, order_ts: first.order_ts }, { amount: '12.50', currency: 'EUR', order_ts: '2020-01-01 00:00:00.000' });

  // An order that arrives before the change it must see: it waits until the customers side
  // has caught up past its time (processing time here), and the change lands in between.
  const due = Date.now() + 4000;
  await produce(topic, 0, [
    JSON.stringify({ order_id: 'o-4-waits', customer_id: 4, amount: '1.00', currency: 'EUR', order_ts: due }),
    JSON.stringify({ order_id: 'o-flush-2', customer_id: 999, amount: '1.00', currency: 'EUR', order_ts: due + 2001 }),
  ]);
  await sleep(1000);
  assert.equal(seen().length, expected.length, 'the waiting order is not emitted before its time');
  const c5 = await commit(`UPDATE ${table} SET tier = 'gold' WHERE id = 4`);
  assert.ok(c5.after < due - 300, `test timing: the update committed by ${c5.after}, before the order's time ${due}`);
  await until(() => seen().length > expected.length, () => ({ out: seen(), stderr: p.stderr() }));
  assert.deepEqual(seen().slice(expected.length), ['o-4-waits 4 dan NL gold']);
  await sleep(500);
  assert.equal(await p.stop(), 0, p.stderr());
  assert.equal(seen().length, expected.length + 1, 'nothing else came out');
});
