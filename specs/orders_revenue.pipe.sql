-- Orders revenue per customer per minute, from a JSON Kafka topic into ClickHouse (for
-- dashboards), Iceberg (for the lake) and a Kafka alert topic for big spenders.
PIPELINE orders_revenue WITH (
  checkpoint_interval = '30 s'
);

CREATE SOURCE orders (
  order_id     STRING NOT NULL,
  customer_id  BIGINT NOT NULL,
  amount       DECIMAL(12, 2) NOT NULL,
  order_ts     TIMESTAMP(3) NOT NULL,
  kafka_offset BIGINT METADATA FROM 'offset',
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (
  connector    = 'kafka',
  topic        = 'orders',
  brokers      = '${PIPEC_KAFKA_BROKERS}',
  group_id     = 'pipec-orders-revenue',
  format       = 'json',
  key          = 'customer_id',
  startup      = 'earliest',
  idle_timeout = '30 s'
);

CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue, COUNT(*) AS orders
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
WHERE amount > 0
GROUP BY customer_id, window_start, window_end
EMIT ON WINDOW CLOSE
ALLOWED LATENESS INTERVAL '30' SECOND
ON LATE TO orders_late;

CREATE SINK orders_late WITH (
  connector   = 'kafka',
  topic       = 'orders-late',
  brokers     = '${PIPEC_KAFKA_BROKERS}',
  format      = 'json',
  acks        = 'all',
  idempotence = true
);

CREATE CATALOG lake WITH (
  type      = 'sql',
  uri       = '${PIPEC_CATALOG_URI}',
  warehouse = '${PIPEC_WAREHOUSE}'
);

CREATE SINK revenue_ch FROM revenue_1m WITH (
  connector = 'clickhouse',
  url       = '${PIPEC_CLICKHOUSE_URL}',
  table     = 'analytics.revenue_1m',
  order_by  = 'customer_id, window_start'
);

CREATE SINK revenue_lake FROM revenue_1m WITH (
  connector        = 'iceberg',
  catalog          = 'lake',
  table            = 'analytics.revenue_1m',
  partition_by     = 'day(window_start), bucket(16, customer_id)',
  sort_by          = 'customer_id',
  format_version   = '2',
  target_file_size = '128 MB',
  commit_interval  = '5 min',
  write_mode       = 'merge-on-read'
);

CREATE SINK alerts AS
SELECT *
FROM revenue_1m
WHERE revenue > 10000
WITH (
  connector   = 'kafka',
  topic       = 'revenue-alerts',
  brokers     = '${PIPEC_KAFKA_BROKERS}',
  format      = 'json',
  key         = 'customer_id',
  acks        = 'all',
  idempotence = true,
  delivery    = 'exactly-once'
);

CREATE COMPACTION POLICY revenue_maintenance ON revenue_lake (
  REWRITE DATA FILES WHERE file_size < '32 MB' TARGET '128 MB' MIN INPUT FILES 5,
  REWRITE DELETE FILES WHERE delete_ratio > 30 PERCENT,
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '7' DAY RETAIN LAST 5,
  REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY
) SCHEDULE EVERY INTERVAL '1' HOUR;
