-- Golden case: the scalar expression language: CASE, CAST, COALESCE, NULLIF, string and time functions, IN, BETWEEN, LIKE.
CREATE SOURCE bids (
  bidtime  TIMESTAMP(3) NOT NULL,
  price    DECIMAL(10, 2) NOT NULL,
  item     STRING NOT NULL,
  supplier_id STRING NOT NULL,
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');

CREATE VIEW enriched AS
SELECT UPPER(item) AS item_upper,
       LOWER(TRIM(supplier_id)) AS supplier,
       CONCAT(item, '-', supplier_id) AS item_supplier,
       item || '/' || supplier_id AS path,
       SUBSTRING(supplier_id FROM 1 FOR 3) AS supplier_prefix,
       CHAR_LENGTH(item) AS item_len,
       CASE WHEN price >= 5 THEN 'high' WHEN price >= 3 THEN 'mid' ELSE 'low' END AS band,
       CAST(price AS DOUBLE) * 1.1 AS price_with_tax,
       COALESCE(NULLIF(item, ''), 'unknown') AS item_or_unknown,
       FLOOR(bidtime TO HOUR) AS bid_hour,
       EXTRACT(MINUTE FROM bidtime) AS bid_minute,
       TIMESTAMPADD(MINUTE, 5, bidtime) AS bid_plus_5m,
       price * 2 + 1 AS doubled
FROM bids
WHERE item IN ('A', 'B', 'C') AND price BETWEEN 1 AND 10 AND supplier_id LIKE 'sup%' AND item IS NOT NULL;

CREATE SINK out FROM enriched WITH (connector = 'stdout', format = 'ndjson');
