-- Golden case: customer_id exists on both sides of the join and is not qualified.
CREATE SOURCE orders (
  order_id     STRING NOT NULL,
  customer_id  BIGINT,
  amount       DECIMAL(12, 2),
  status       STRING,
  order_ts     TIMESTAMP(3),
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (
  connector = 'kafka',
  topic = 'orders',
  format = 'json',
  key = 'customer_id',
  idle_timeout = '30 s'
);

CREATE SOURCE customers (
  customer_id BIGINT NOT NULL,
  name STRING,
  updated_at TIMESTAMP(3),
  PRIMARY KEY (customer_id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '${PIPEC_SHOP_DSN}', table = 'public.customers', heartbeat = '1 min');

CREATE VIEW v AS
SELECT customer_id, c.name, o.amount
FROM orders AS o
JOIN customers FOR SYSTEM_TIME AS OF o.order_ts AS c ON o.customer_id = c.customer_id;

CREATE SINK out FROM v WITH (connector = 'stdout');
