-- Golden case: a regular join with neither a time bound nor state_ttl.
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

CREATE SOURCE payments (
  order_id STRING NOT NULL,
  paid     DECIMAL(12, 2),
  paid_ts  TIMESTAMP(3),
  WATERMARK FOR paid_ts AS paid_ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'payments', format = 'json', idle_timeout = '30 s');

CREATE VIEW v AS
SELECT o.order_id, o.amount, p.paid
FROM orders AS o JOIN payments AS p ON o.order_id = p.order_id;

CREATE SINK out FROM v WITH (connector = 'stdout');
