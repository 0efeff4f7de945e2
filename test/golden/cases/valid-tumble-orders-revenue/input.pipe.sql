-- Golden case: the orders revenue example of LANGUAGE.md (declared columns, no schema file).
PIPELINE orders_revenue WITH (checkpoint_interval = '30 s');

CREATE SOURCE orders (
  order_id     STRING NOT NULL,
  customer_id  BIGINT NOT NULL,
  amount       DECIMAL(12, 2),
  order_ts     TIMESTAMP(3),
  kafka_offset BIGINT METADATA FROM 'offset',
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (
  connector    = 'kafka',
  topic        = 'orders',
  format       = 'json',
  key          = 'customer_id',
  startup      = 'earliest',
  idle_timeout = '30 s'
);

CREATE VIEW revenue_1m AS
SELECT customer_id, window_start, window_end,
       SUM(amount) AS revenue, COUNT(*) AS orders
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
WHERE amount > 0
GROUP BY customer_id, window_start, window_end
EMIT ON WINDOW CLOSE
ALLOWED LATENESS INTERVAL '30' SECOND
ON LATE TO orders_late;

CREATE SINK orders_late WITH (connector = 'kafka', topic = 'orders-late', format = 'json', acks = 'all', idempotence = true);

CREATE SINK revenue_ch FROM revenue_1m WITH (
  connector = 'clickhouse',
  url       = '${PIPEC_CLICKHOUSE_URL}',
  table     = 'analytics.revenue_1m',
  order_by  = 'customer_id, window_start'
);
