-- Golden case: quoted identifiers keep case and may hold quotes and backticks; generated DDL must escape them.
CREATE SOURCE "Events" (
  "User ID"    BIGINT NOT NULL,
  "weird`name" STRING,
  "say ""hi""" STRING,
  ts           TIMESTAMP(3) NOT NULL,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH (connector = 'kafka', topic = 'events', format = 'json', key = 'User ID', idle_timeout = '10 s');

CREATE VIEW "Per User" AS
SELECT "User ID", window_start, window_end, COUNT(*) AS "Count", MAX("weird`name") AS "max`w"
FROM TUMBLE("Events", ts, INTERVAL '1' MINUTE)
GROUP BY "User ID", window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK ch FROM "Per User" WITH (connector = 'clickhouse', url = '${PIPEC_CLICKHOUSE_URL}', table = 'odd.per_user', order_by = '"User ID", window_start');
