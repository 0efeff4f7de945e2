-- Golden case: sessions per (item, supplier_id), written as Flink writes several partition
-- columns, `PARTITION BY (a, b)` inside the long-form SESSION: it parses, checks, lowers to a
-- two-column partition key; the Flink target writes GROUP BY item, supplier_id, SESSION(...) (a view of the TVF form does not read back on Flink 2.3).
CREATE SOURCE bids (
  bidtime     TIMESTAMP(3) NOT NULL,
  price       DECIMAL(10, 2) NOT NULL,
  item        STRING NOT NULL,
  supplier_id STRING NOT NULL,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');

CREATE VIEW item_supplier_sessions AS
SELECT item, supplier_id, window_start, window_end, SUM(price) AS total_price, COUNT(*) AS bids
FROM TABLE(SESSION(TABLE bids PARTITION BY (item, supplier_id), DESCRIPTOR(bidtime), INTERVAL '5' MINUTE))
GROUP BY item, supplier_id, window_start, window_end
EMIT ON WINDOW CLOSE
ON LATE DROP;

CREATE SINK out FROM item_supplier_sessions WITH (connector = 'stdout', format = 'ndjson');
