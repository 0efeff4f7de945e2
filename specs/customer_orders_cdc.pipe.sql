-- Orders enriched with the customer row valid at order time: a PostgreSQL CDC changelog of
-- customers, temporally joined to JSON order events, written to ClickHouse and Iceberg.
PIPELINE customer_orders_cdc WITH (
  checkpoint_interval = '30 s'
);

CREATE SOURCE customers (
  id         BIGINT NOT NULL,
  name       STRING NOT NULL,
  email      STRING,
  country    STRING NOT NULL,
  tier       STRING NOT NULL,
  updated_at TIMESTAMP(6) NOT NULL,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  connector   = 'postgres-cdc',
  dsn         = '${PIPEC_SHOP_DSN}',
  table       = 'public.customers',
  slot        = 'pipec_customers',
  publication = 'pipec_customers_pub',
  snapshot    = 'initial',
  heartbeat   = '1 min'
);

CREATE SOURCE order_events (
  order_id    STRING NOT NULL,
  customer_id BIGINT NOT NULL,
  amount      DECIMAL(12, 2) NOT NULL,
  currency    STRING NOT NULL,
  order_ts    TIMESTAMP(3) NOT NULL,
  WATERMARK FOR order_ts AS order_ts - INTERVAL '10' SECOND
) WITH (
  connector    = 'kafka',
  topic        = 'order-events',
  brokers      = '${PIPEC_KAFKA_BROKERS}',
  group_id     = 'pipec-customer-orders',
  format       = 'json',
  key          = 'customer_id',
  startup      = 'earliest',
  idle_timeout = '30 s'
);

CREATE VIEW enriched_orders AS
SELECT
  o.order_id,
  o.customer_id,
  c.name AS customer_name,
  c.country,
  c.tier,
  o.amount,
  o.currency,
  o.order_ts
FROM order_events AS o
JOIN customers FOR SYSTEM_TIME AS OF o.order_ts AS c ON o.customer_id = c.id;

CREATE SINK enriched_orders_ch FROM enriched_orders WITH (
  connector    = 'clickhouse',
  url          = '${PIPEC_CLICKHOUSE_URL}',
  table        = 'sales.enriched_orders',
  order_by     = 'customer_id, order_ts, order_id',
  partition_by = 'toYYYYMM(order_ts)'
);

CREATE CATALOG lake WITH (
  type      = 'rest',
  uri       = '${PIPEC_CATALOG_URI}',
  warehouse = '${PIPEC_WAREHOUSE}'
);

CREATE SINK enriched_orders_lake FROM enriched_orders WITH (
  connector       = 'iceberg',
  catalog         = 'lake',
  table           = 'sales.enriched_orders',
  partition_by    = 'day(order_ts)',
  sort_by         = 'country, customer_id',
  commit_interval = '5 min',
  format_version  = '3'
);
