-- Golden case: a temporal join of order events against a PostgreSQL CDC changelog of customers.
CREATE SOURCE customers (
  id         BIGINT NOT NULL,
  name       STRING NOT NULL,
  tier       STRING,
  updated_at TIMESTAMP(6),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '${PIPEC_SHOP_DSN}', table = 'public.customers', snapshot = 'initial', heartbeat = '1 min');

CREATE SOURCE order_events (
  order_id    STRING NOT NULL,
  customer_id BIGINT NOT NULL,
  amount      DECIMAL(12, 2),
  order_ts    TIMESTAMP(3),
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'order-events', format = 'json', key = 'customer_id', idle_timeout = '30 s');

CREATE VIEW enriched AS
SELECT o.order_id, o.customer_id, c.name, c.tier, o.amount, o.order_ts
FROM order_events AS o
LEFT JOIN customers FOR SYSTEM_TIME AS OF o.order_ts AS c ON o.customer_id = c.id;

CREATE SINK out FROM enriched WITH (connector = 'clickhouse', url = '${PIPEC_CLICKHOUSE_URL}', table = 'sales.enriched', order_by = 'customer_id, order_ts');
