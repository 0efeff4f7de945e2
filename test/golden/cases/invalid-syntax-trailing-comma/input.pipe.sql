-- Golden case: a trailing comma at the end of the column list.
CREATE SOURCE s (
  a BIGINT,
  b STRING,
) WITH (connector = 'datagen');
CREATE SINK out AS SELECT a FROM s WITH (connector = 'stdout');
