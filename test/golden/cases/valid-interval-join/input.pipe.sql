-- Golden case: an interval join of orders and shipments within 4 hours.
CREATE SOURCE orders (
  order_id STRING NOT NULL,
  amount   DECIMAL(12, 2),
  order_ts TIMESTAMP(3),
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'orders', format = 'json', idle_timeout = '30 s');

CREATE SOURCE shipments (
  order_id STRING NOT NULL,
  carrier  STRING,
  ship_ts  TIMESTAMP(3),
  WATERMARK FOR ship_ts AS ship_ts - INTERVAL '5' SECOND
) WITH (connector = 'kafka', topic = 'shipments', format = 'json', idle_timeout = '30 s');

CREATE VIEW shipped_orders AS
SELECT o.order_id, o.amount, s.carrier, o.order_ts, s.ship_ts
FROM orders AS o
JOIN shipments AS s
  ON o.order_id = s.order_id
 AND s.ship_ts BETWEEN o.order_ts AND o.order_ts + INTERVAL '4' HOUR;

CREATE SINK out FROM shipped_orders WITH (connector = 'kafka', topic = 'shipped-orders', format = 'json', acks = 'all', idempotence = true);
