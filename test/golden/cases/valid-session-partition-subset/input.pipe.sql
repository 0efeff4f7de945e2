-- Golden case: sessions per item (PARTITION BY item), totals per (item, supplier) within each
-- session: the partition key is only part of the grouping key, so the runtime gets a separate
-- partition-key function (Flink's semantics: PARTITION BY decides what one session holds).
CREATE SOURCE bids (
  bidtime  TIMESTAMP(3) NOT NULL,
  price    DECIMAL(10, 2) NOT NULL,
  item     STRING NOT NULL,
  supplier_id STRING NOT NULL,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');

CREATE VIEW item_supplier_sessions AS
SELECT item, supplier_id, window_start, window_end, SUM(price) AS total_price, COUNT(*) AS bids
FROM SESSION(bids PARTITION BY item, bidtime, INTERVAL '5' MINUTE)
GROUP BY item, supplier_id, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK out FROM item_supplier_sessions WITH (connector = 'stdout', format = 'ndjson');
