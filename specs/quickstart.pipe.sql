-- Quickstart: synthetic page views, counted and timed per page per minute.
-- Runs on a laptop with no servers: `pipec run specs/quickstart.pipe.sql`.
PIPELINE quickstart WITH (
  checkpoint_interval = '5 s'
);

CREATE SOURCE page_views (
  view_id     BIGINT NOT NULL,
  user_id     BIGINT NOT NULL,
  page        STRING NOT NULL,
  duration_ms INT,
  view_ts     TIMESTAMP(3) NOT NULL,
  WATERMARK FOR view_ts AS view_ts - INTERVAL '2' SECOND
) WITH (
  connector               = 'datagen',
  total_rows              = 20000,
  partitions              = 2,
  seed                    = 42,
  fields.view_id.kind     = 'sequence',
  fields.user_id.kind     = 'random',
  fields.user_id.min      = 1,
  fields.user_id.max      = 500,
  fields.page.kind        = 'choice',
  fields.page.values      = '/home,/search,/product,/cart,/checkout',
  fields.duration_ms.kind = 'random',
  fields.duration_ms.min  = 50,
  fields.duration_ms.max  = 30000,
  fields.view_ts.kind     = 'sequence',
  fields.view_ts.min      = '2026-01-01 00:00:00',
  fields.view_ts.step     = '30 ms',
  idle_timeout            = '5 s'
);

-- Five pages make a small key space; fine on a laptop, so the hot-partition lint is silenced here.
-- pipec:allow hot-partition-group-key
CREATE VIEW page_stats_1m AS
SELECT
  page,
  window_start,
  window_end,
  COUNT(*) AS views,
  COUNT(DISTINCT user_id) AS visitors,
  AVG(duration_ms) AS avg_duration_ms,
  MAX(duration_ms) AS max_duration_ms
FROM TUMBLE(page_views, view_ts, INTERVAL '1' MINUTE)
GROUP BY page, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK page_stats_console FROM page_stats_1m WITH (
  connector = 'stdout',
  format    = 'table'
);

CREATE SINK page_stats_file FROM page_stats_1m WITH (
  connector = 'file',
  path      = 'out/quickstart/page_stats_1m.ndjson',
  format    = 'ndjson'
);
