-- Clickstream sessions: Protobuf click events from Kafka, grouped into per-user sessions that
-- close after 30 minutes of inactivity, written to Iceberg for product analytics.
PIPELINE clickstream_sessions WITH (
  checkpoint_interval = '1 min'
);

CREATE SOURCE clicks (
  WATERMARK FOR event_time AS event_time - INTERVAL '10' SECOND
) WITH (
  connector    = 'kafka',
  topic        = 'clicks',
  brokers      = '${PIPEC_KAFKA_BROKERS}',
  group_id     = 'pipec-clickstream',
  format       = 'protobuf',
  schema       = 'file:schemas/clicks.proto#Click',
  key          = 'user_id',
  startup      = 'committed',
  idle_timeout = '1 min'
);

CREATE VIEW user_sessions AS
SELECT
  user_id,
  window_start AS session_start,
  window_end AS session_end,
  COUNT(*) AS clicks,
  COUNT(DISTINCT url) AS distinct_pages,
  FIRST_VALUE(url) AS landing_page,
  LAST_VALUE(url) AS exit_page
FROM SESSION(clicks PARTITION BY user_id, event_time, INTERVAL '30' MINUTE)
GROUP BY user_id, window_start, window_end
EMIT ON WINDOW CLOSE
ALLOWED LATENESS INTERVAL '1' MINUTE
ON LATE DROP;

CREATE CATALOG lake WITH (
  type      = 'filesystem',
  warehouse = '${PIPEC_WAREHOUSE}'
);

CREATE SINK sessions_lake FROM user_sessions WITH (
  connector       = 'iceberg',
  catalog         = 'lake',
  table           = 'web.user_sessions',
  partition_by    = 'day(session_start)',
  sort_by         = 'user_id, session_start',
  commit_interval = '10 min'
);

CREATE COMPACTION POLICY sessions_maintenance ON sessions_lake (
  REWRITE DATA FILES WHERE file_size < '16 MB' TARGET '128 MB' MIN INPUT FILES 8,
  EXPIRE SNAPSHOTS OLDER THAN INTERVAL '3' DAY RETAIN LAST 10,
  REMOVE ORPHAN FILES OLDER THAN INTERVAL '3' DAY
) SCHEDULE EVERY INTERVAL '6' HOUR;
