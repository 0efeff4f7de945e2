-- Golden case: declared columns disagree with the Avro schema: a missing field, a wrong type, and NOT NULL on a nullable field.
CREATE SOURCE orders (
  order_id     STRING NOT NULL,
  customer     BIGINT,
  amount       DOUBLE,
  coupon       STRING NOT NULL,
  order_ts     TIMESTAMP(3),
  WATERMARK FOR order_ts AS order_ts - INTERVAL '5' SECOND
) WITH (
  connector = 'kafka', topic = 'orders', format = 'avro',
  schema = 'file:../../../../specs/schemas/orders.avsc', idle_timeout = '30 s'
);
CREATE SINK out AS SELECT order_id FROM orders WITH (connector = 'stdout');
