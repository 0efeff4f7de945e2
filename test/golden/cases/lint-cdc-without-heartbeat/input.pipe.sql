-- Golden case: a postgres-cdc source without heartbeat.
CREATE SOURCE customers (
  id BIGINT NOT NULL,
  name STRING,
  PRIMARY KEY (id) NOT ENFORCED
) WITH (connector = 'postgres-cdc', dsn = '${PIPEC_SHOP_DSN}', table = 'public.customers');
CREATE SINK out FROM customers WITH (connector = 'stdout');
