-- Golden case: EMIT ON WINDOW CLOSE on a view that has no window.
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

CREATE VIEW v AS
SELECT order_id, amount FROM orders WHERE amount > 0
EMIT ON WINDOW CLOSE;

CREATE SINK out FROM v WITH (connector = 'stdout');
