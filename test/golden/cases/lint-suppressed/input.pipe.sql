-- Golden case: the missing ON LATE choice is silenced with a pipec:allow comment: no warning is expected for it.
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

-- pipec:allow window-late-unspecified
CREATE VIEW v AS
SELECT customer_id, window_start, window_end, SUM(amount) AS revenue
FROM TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end
EMIT ON WINDOW CLOSE;

CREATE SINK out FROM v WITH (connector = 'stdout');
