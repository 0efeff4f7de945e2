-- Golden case: Flink's CUMULATE example over the Bid table (2 min steps up to 10 min).
CREATE SOURCE bids (
  bidtime  TIMESTAMP(3) NOT NULL,
  price    DECIMAL(10, 2) NOT NULL,
  item     STRING NOT NULL,
  supplier_id STRING NOT NULL,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');

CREATE VIEW cumulative_prices AS
SELECT window_start, window_end, SUM(price) AS total_price
FROM CUMULATE(bids, bidtime, INTERVAL '2' MINUTE, INTERVAL '10' MINUTE)
GROUP BY window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK out FROM cumulative_prices WITH (connector = 'stdout', format = 'ndjson');
