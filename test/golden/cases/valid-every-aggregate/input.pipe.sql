-- Golden case: every aggregate of LANGUAGE.md in one tumble window, with HAVING and expressions over aggregates.
CREATE SOURCE bids (
  bidtime  TIMESTAMP(3) NOT NULL,
  price    DECIMAL(10, 2) NOT NULL,
  item     STRING NOT NULL,
  supplier_id STRING NOT NULL,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');

CREATE VIEW item_stats AS
SELECT item, window_start, window_end, window_time,
       COUNT(*) AS bids,
       COUNT(supplier_id) AS bids_with_supplier,
       COUNT(DISTINCT supplier_id) AS suppliers,
       APPROX_COUNT_DISTINCT(supplier_id) AS suppliers_approx,
       SUM(price) AS total,
       MIN(price) AS low,
       MAX(price) AS high,
       AVG(price) AS mean,
       FIRST_VALUE(supplier_id) AS first_supplier,
       LAST_VALUE(supplier_id) AS last_supplier,
       MAX(price) - MIN(price) AS spread
FROM TUMBLE(bids, bidtime, INTERVAL '10' MINUTE)
WHERE price > 0 AND item <> 'X'
GROUP BY item, window_start, window_end, window_time
HAVING COUNT(*) > 1
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK out FROM item_stats WITH (connector = 'file', path = 'out/item_stats.ndjson', format = 'ndjson');
