// Lints on plans the real checker builds from .pipe.sql text: each warning at the line of the
// statement at fault (operators point at their SELECT); a pipeline that follows every rule gets none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lintSql } from './sql-helpers.ts';

const ORDERS = `CREATE SOURCE orders (
  order_id     STRING NOT NULL,
  customer_id  BIGINT,
  amount       DECIMAL(12, 2),
  order_ts     TIMESTAMP(3),
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'orders', format = 'json', key = 'customer_id'__IDLE__);
`;

test('the outage seeds of a first draft, each at its statement', async () => {
  const r = await lintSql(`${ORDERS.replace('__IDLE__', '')}
CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end;

CREATE SINK revenue_ch FROM revenue_1m WITH (
  connector = 'clickhouse', url = '\${PIPEC_CLICKHOUSE_URL}', table = 'analytics.revenue_1m', order_by = 'customer_id, window_start'
);

CREATE SINK alerts AS SELECT * FROM revenue_1m WHERE revenue > 10000
WITH (connector = 'kafka', topic = 'revenue-alerts', format = 'json', key = 'customer_id', acks = '1');
`);
  assert.deepEqual(r.where, [
    'watermark-without-idle-timeout@1',
    'window-late-unspecified@10',
    'clickhouse-duplicates-on-replay@14',
    'kafka-sink-not-idempotent@18',
  ]);
});

test('a pipeline that follows every rule gets no warning', async () => {
  const r = await lintSql(`${ORDERS.replace('__IDLE__', ", idle_timeout = '30 s'")}
CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
WHERE amount > 0
GROUP BY customer_id, window_start, window_end
ON LATE DROP;

CREATE SINK out FROM revenue_1m WITH (connector = 'kafka', topic = 'revenue', format = 'json', key = 'customer_id', acks = 'all');
`);
  assert.deepEqual(r.where, []);
});

test("a ClickHouse sink with delivery = 'exactly-once' is not warned about replays", async () => {
  const r = await lintSql(`${ORDERS.replace('__IDLE__', ", idle_timeout = '30 s'")}
CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end
ON LATE DROP;

CREATE SINK revenue_ch FROM revenue_1m WITH (
  connector = 'clickhouse', url = '\${PIPEC_CLICKHOUSE_URL}', table = 'analytics.revenue_1m', delivery = 'exactly-once'
);
`);
  assert.deepEqual(r.where, []);
});

test('grouping by another column than the topic key', async () => {
  const r = await lintSql(`${ORDERS.replace('__IDLE__', ", idle_timeout = '30 s'")}
CREATE VIEW by_order AS
SELECT order_id, window_start, window_end, COUNT(*) AS n
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
GROUP BY order_id, window_start, window_end
ON LATE DROP;
CREATE SINK out FROM by_order WITH (connector = 'stdout');
`);
  assert.deepEqual(r.where, ['group-key-not-message-key@10']);
  assert.match(r.warnings[0]!.message, /groups by \(order_id\) but topic of source 'orders' is keyed by \(customer_id\)/);
});

test('datagen choice key, CDC without heartbeat, Iceberg small files with the estimate', async () => {
  const r = await lintSql(`CREATE SOURCE customers (
  id BIGINT NOT NULL,
  name STRING,
  PRIMARY KEY (id)
) WITH (connector = 'postgres-cdc', dsn = '\${PG_DSN}', table = 'public.customers');

CREATE SOURCE views (
  region STRING NOT NULL,
  user_id BIGINT NOT NULL,
  view_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR view_ts AS view_ts - INTERVAL '1' SECOND
) WITH (connector = 'datagen', rows_per_second = '10', idle_timeout = '5 s',
  fields.region.kind = 'choice', fields.region.values = 'eu,us,apac');

CREATE VIEW by_region AS
SELECT region, window_start, window_end, COUNT(*) AS n
FROM TUMBLE(views, view_ts, INTERVAL '1' MINUTE)
GROUP BY region, window_start, window_end
ON LATE DROP;

CREATE CATALOG lake WITH (type = 'filesystem', warehouse = 'wh');

CREATE SINK lake_out FROM by_region WITH (
  connector = 'iceberg', catalog = 'lake', table = 'a.by_region',
  partition_by = 'day(window_start), bucket(16, region)', commit_interval = '1 min'
);

CREATE SINK cust_out AS SELECT id, name FROM customers WITH (connector = 'stdout');
`);
  assert.deepEqual(r.where, ['cdc-without-heartbeat@1', 'hot-partition-group-key@16', 'iceberg-small-files@23']);
  const small = r.warnings.find((d) => d.code === 'iceberg-small-files')!;
  // 1440 commits a day × (1 day partition × 16 buckets).
  assert.match(small.message, /commits every 1 min into 16 partitions per commit: an estimated 23,040 data files per day/);
});
