// The Nexmark-style queries of the suite: each as a pipec spec (file sources → NDJSON file sink)
// and as the DuckDB batch query computing the same rows, plus a check value every engine must
// agree on (the number of output rows and a sum over them), so a figure is never of a wrong
// answer. q6 joins the bids with the auctions file; q7's sink receives an upsert stream, whose
// final table (the last row per key) is what is compared.
export interface NexmarkQuery {
  id: string;
  what: string;
  /** The spec's body after the source (views and the sink `out`). */
  spec: string;
  /** The sources the spec reads (default: the bid source). */
  sources?: string;
  /** DuckDB SQL over the tables `bid` and `auction`, one row: `rows` and `check`. */
  duckdb: string;
  /** The same pair from an engine's output rows (a changelog as `op` + columns, see asChangelog). */
  check: (rows: Iterable<Record<string, unknown>>) => { rows: number; check: number };
}

/**
 * A changelog sink's rows as pipec writes them (`op`: +I, -U, +U, -D, then the columns), from
 * either that form or Flink's debezium-json one ({before, after, op: c|u|d}).
 */
export function* asChangelog(rows: Iterable<Record<string, unknown>>): Generator<Record<string, unknown>> {
  for (const r of rows) {
    if (!('after' in r || 'before' in r)) {
      yield r;
      continue;
    }
    if (r['before'] != null) yield { op: r['op'] === 'u' ? '-U' : '-D', ...(r['before'] as object) };
    if (r['after'] != null) yield { op: r['op'] === 'u' ? '+U' : '+I', ...(r['after'] as object) };
  }
}

/** The table a changelog leaves: the last row per key (an -U/-D removes it). */
function finalTable(rows: Iterable<Record<string, unknown>>, key: string): Record<string, unknown>[] {
  const t = new Map<unknown, Record<string, unknown>>();
  for (const r of asChangelog(rows)) {
    if (r['op'] === '-U' || r['op'] === '-D') t.delete(r[key]);
    else t.set(r[key], r);
  }
  return [...t.values()];
}

const sink = (view: string): string => `CREATE SINK out FROM ${view} WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');`;
const num = (v: unknown): number => Number(v);
/** Row count and the sum of `cols` over all rows, in one pass (the rows may be a stream). */
function countAndSum(rows: Iterable<Record<string, unknown>>, ...cols: string[]): { rows: number; check: number } {
  let n = 0;
  let sum = 0;
  for (const r of rows) {
    n++;
    for (const c of cols) sum += num(r[c]);
  }
  return { rows: n, check: sum };
}

export const SOURCE = `CREATE SOURCE bid (
  auction BIGINT NOT NULL, bidder BIGINT NOT NULL, price BIGINT NOT NULL, channel STRING, url STRING,
  date_time TIMESTAMP(3) NOT NULL, extra STRING,
  WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'bids.ndjson', format = 'ndjson');`;

export const AUCTION_SOURCE = `CREATE SOURCE auction (
  id BIGINT NOT NULL, item_name STRING, seller BIGINT NOT NULL, category BIGINT NOT NULL, initial_bid BIGINT,
  date_time TIMESTAMP(3) NOT NULL, expires TIMESTAMP(3),
  WATERMARK FOR date_time AS date_time - INTERVAL '1' SECOND
) WITH (connector = 'file', path = 'auctions.ndjson', format = 'ndjson');`;

export const QUERIES: NexmarkQuery[] = [
  {
    id: 'q1',
    what: 'projection + filter',
    spec: `CREATE VIEW q1 AS SELECT auction, bidder, price * 908 / 1000 AS price_eur, date_time FROM bid WHERE auction % 5 = 0;\n${sink('q1')}`,
    duckdb: 'SELECT count(*) AS rows, sum(price * 908 // 1000) AS check FROM bid WHERE auction % 5 = 0',
    check: (r) => countAndSum(r, 'price_eur'),
  },
  {
    id: 'q2',
    what: 'HOP 10 s / 2 s COUNT by auction',
    spec: `CREATE VIEW q2 AS SELECT auction, window_start, window_end, COUNT(*) AS n FROM HOP(bid, date_time, INTERVAL '2' SECOND, INTERVAL '10' SECOND) GROUP BY auction, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;\n${sink('q2')}`,
    // A bid falls into the 5 windows starting at the 2 s slides in (t - 10 s, t].
    duckdb: `SELECT count(*) AS rows, sum(n) AS check FROM (
      SELECT auction, w, count(*) AS n FROM (
        SELECT auction, (epoch_ms(date_time) // 2000) * 2000 - k * 2000 AS w FROM bid, range(0, 5) t(k)
      ) GROUP BY auction, w)`,
    check: (r) => countAndSum(r, 'n'),
  },
  {
    id: 'q3',
    what: 'TUMBLE 10 s MAX(price)',
    spec: `CREATE VIEW q3 AS SELECT window_start, window_end, MAX(price) AS top FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;\n${sink('q3')}`,
    duckdb: 'SELECT count(*) AS rows, sum(top) AS check FROM (SELECT epoch_ms(date_time) // 10000 AS w, max(price) AS top FROM bid GROUP BY w)',
    check: (r) => countAndSum(r, 'top'),
  },
  {
    id: 'q4',
    what: 'TUMBLE 10 s SUM/COUNT by bidder',
    spec: `CREATE VIEW q4 AS SELECT bidder, window_start, window_end, SUM(price) AS total, COUNT(*) AS n FROM TUMBLE(bid, date_time, INTERVAL '10' SECOND) GROUP BY bidder, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;\n${sink('q4')}`,
    duckdb: 'SELECT count(*) AS rows, sum(total) AS check FROM (SELECT bidder, epoch_ms(date_time) // 10000 AS w, sum(price) AS total FROM bid GROUP BY bidder, w)',
    check: (r) => countAndSum(r, 'total'),
  },
  {
    id: 'q5',
    what: 'SESSION 10 s by bidder',
    spec: `CREATE VIEW q5 AS SELECT bidder, window_start, window_end, COUNT(*) AS n FROM SESSION(bid PARTITION BY bidder, date_time, INTERVAL '10' SECOND) GROUP BY bidder, window_start, window_end EMIT ON WINDOW CLOSE ON LATE DROP;\n${sink('q5')}`,
    // A session starts at a bidder's first bid and wherever the gap to the previous bid is more than
    // 10 s: a gap of exactly 10 s joins the session (windows [t, t + gap) that touch merge, as in Flink).
    duckdb: `SELECT count(*) AS rows, sum(n) AS check FROM (
      SELECT bidder, s, count(*) AS n FROM (
        SELECT bidder, sum(CASE WHEN prev IS NULL OR epoch_ms(date_time) - epoch_ms(prev) > 10000 THEN 1 ELSE 0 END) OVER (PARTITION BY bidder ORDER BY date_time ROWS UNBOUNDED PRECEDING) AS s
        FROM (SELECT bidder, date_time, lag(date_time) OVER (PARTITION BY bidder ORDER BY date_time) AS prev FROM bid)
      ) GROUP BY bidder, s)`,
    check: (r) => countAndSum(r, 'n'),
  },
  {
    id: 'q6',
    what: 'interval join bids ⋈ auctions within 10 s of opening',
    sources: `${SOURCE}\n${AUCTION_SOURCE}`,
    spec: `CREATE VIEW q6 AS SELECT b.auction, b.bidder, b.price, b.date_time, a.seller, a.category FROM bid AS b JOIN auction AS a ON b.auction = a.id AND b.date_time BETWEEN a.date_time AND a.date_time + INTERVAL '10' SECOND;\n${sink('q6')}`,
    duckdb: `SELECT count(*) AS rows, sum(b.price + a.seller) AS check FROM bid b JOIN auction a ON b.auction = a.id AND b.date_time BETWEEN a.date_time AND a.date_time + INTERVAL 10 SECOND`,
    check: (r) => countAndSum(r, 'price', 'seller'),
  },
  {
    id: 'q7',
    what: 'upsert stream: MAX(price), COUNT by auction, EMIT CHANGES',
    spec: `CREATE VIEW q7 WITH (state_ttl = '1 d') AS SELECT auction, MAX(price) AS top, COUNT(*) AS n FROM bid GROUP BY auction EMIT CHANGES;\n${sink('q7')}`,
    duckdb: 'SELECT count(*) AS rows, sum(top) + sum(n) AS check FROM (SELECT auction, max(price) AS top, count(*) AS n FROM bid GROUP BY auction)',
    check: (r) => {
      return countAndSum(finalTable(r, 'auction'), 'top', 'n');
    },
  },
];
