-- Golden case: Flink's HOP example over the Bid table (10 min windows sliding by 5 min).
CREATE SOURCE bids (
  bidtime  TIMESTAMP(3) NOT NULL,
  price    DECIMAL(10, 2) NOT NULL,
  item     STRING NOT NULL,
  supplier_id STRING NOT NULL,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');

CREATE VIEW hop_prices AS
SELECT window_start, window_end, SUM(price) AS total_price
FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))
GROUP BY window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK out FROM hop_prices WITH (connector = 'stdout', format = 'ndjson');
