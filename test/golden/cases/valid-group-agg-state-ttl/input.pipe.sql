-- Golden case: a non-windowed running total per customer with EMIT CHANGES and a state TTL.
CREATE SOURCE orders (
  order_id    STRING NOT NULL,
  customer_id BIGINT NOT NULL,
  amount      DECIMAL(12, 2),
  order_ts    TIMESTAMP(3)
) WITH (connector = 'kafka', topic = 'orders', format = 'json', key = 'customer_id');

CREATE VIEW lifetime_value WITH (state_ttl = '30 d') AS
SELECT customer_id, SUM(amount) AS lifetime_revenue, COUNT(*) AS orders, MAX(order_ts) AS last_order_ts
FROM orders
GROUP BY customer_id
EMIT CHANGES;

CREATE SINK out FROM lifetime_value WITH (connector = 'clickhouse', url = '${PIPEC_CLICKHOUSE_URL}', table = 'crm.lifetime_value', order_by = 'customer_id');
