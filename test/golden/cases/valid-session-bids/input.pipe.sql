-- Golden case: Flink's SESSION example: sessions per item with a 5 minute gap.
CREATE SOURCE bids (
  bidtime  TIMESTAMP(3) NOT NULL,
  price    DECIMAL(10, 2) NOT NULL,
  item     STRING NOT NULL,
  supplier_id STRING NOT NULL,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');

CREATE VIEW item_sessions AS
SELECT item, window_start, window_end, SUM(price) AS total_price, COUNT(*) AS bids
FROM SESSION(bids PARTITION BY item, bidtime, INTERVAL '5' MINUTE)
GROUP BY item, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK out FROM item_sessions WITH (connector = 'stdout', format = 'ndjson');
