-- Golden case: UNION ALL of two sources with the same shape, then a tumble count.
CREATE SOURCE web_events (
  user_id  BIGINT NOT NULL,
  kind     STRING NOT NULL,
  event_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR event_ts AS event_ts - INTERVAL '2' SECOND
) WITH (connector = 'file', path = 'web/*.ndjson', format = 'ndjson');

CREATE SOURCE app_events (
  user_id  BIGINT NOT NULL,
  kind     STRING NOT NULL,
  event_ts TIMESTAMP(3) NOT NULL,
  WATERMARK FOR event_ts AS event_ts - INTERVAL '2' SECOND
) WITH (connector = 'file', path = 'app/*.csv', format = 'csv');

CREATE VIEW all_events AS
SELECT user_id, kind, event_ts FROM web_events
UNION ALL
SELECT user_id, kind, event_ts FROM app_events;

CREATE SINK out FROM all_events WITH (connector = 'file', path = 'out/all_events.parquet', format = 'parquet');
