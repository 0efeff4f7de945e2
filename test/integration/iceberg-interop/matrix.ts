// The interop suite's matrix (issue 20): the input rows, the pipeline specs that write the
// tables with `pipec run` (file source → Iceberg sinks in a filesystem and a SQLite catalog,
// every partition transform, v2 and v3, appends and upserts in both write modes), and the
// expected contents of each table computed independently from the input (plain JS over the
// rows, never through pipec), as the canonical text engines.py prints.

export interface InputRow {
  id: number;
  city: string | null;
  flag: boolean | null;
  payload: string | null;
  amount: string | null;
  ts: number | null;
  n: number | null;
}

/** Cities with non-ASCII, a space, and the characters a path or URL encoding must escape. */
const CITIES = ['Zürich', 'New York', 'São Paulo', 'Berlin', null, 'a b/c=d%+'];

function amountOf(i: number): string | null {
  if (i % 11 === 0) return null;
  if (i === 1) return '-1000.00';
  const cents = ((i * 137) % 5000) - 2500;
  const sign = cents < 0 ? '-' : '';
  const a = Math.abs(cents);
  return `${sign}${Math.floor(a / 100)}.${String(a % 100).padStart(2, '0')}`;
}

export function inputRows(from: number, to: number): InputRow[] {
  const out: InputRow[] = [];
  for (let i = from; i < to; i++) {
    out.push({
      id: i,
      city: CITIES[i % CITIES.length]!,
      flag: i % 5 === 0 ? null : i % 3 === 0,
      // Few distinct values per partition column (16 payloads, 10 hours over 2 days): each
      // partition holds several rows, so a table has tens of files, not one per row (every
      // file is a task in each Spark scan).
      payload: i % 7 === 3 ? null : Buffer.from([0, 0, i % 16, 0xff]).toString('base64'),
      amount: amountOf(i),
      ts: i % 13 === 12 ? null : Date.UTC(2024, 0, 1) + (i % 10) * 14_400_000 + Math.floor(i / 10) * 60_000 + (i % 4) * 250,
      n: i % 6 === 5 ? null : i * 123_456_789_012,
    });
  }
  return out;
}

export const ndjson = (rows: InputRow[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

export type ColType = 'int' | 'long' | 'string' | 'boolean' | 'binary' | 'decimal' | 'timestamp';
export interface Col {
  name: string;
  type: ColType;
}

export const APPEND_COLUMNS: Col[] = [
  { name: 'id', type: 'int' },
  { name: 'city', type: 'string' },
  { name: 'flag', type: 'boolean' },
  { name: 'payload', type: 'binary' },
  { name: 'amount', type: 'decimal' },
  { name: 'ts', type: 'timestamp' },
  { name: 'n', type: 'long' },
];
export const AGG_COLUMNS: Col[] = [
  { name: 'city', type: 'string' },
  { name: 'cnt', type: 'long' },
  { name: 'total', type: 'decimal' },
];

export interface TableCase {
  sink: string;
  catalog: 'lake' | 'lakesql';
  table: string;
  partitionBy: string | null;
  formatVersion: 2 | 3;
  kind: 'append' | 'cow' | 'mor';
  /** Compacted (REWRITE DATA FILES + REWRITE DELETE FILES) before the second read. */
  compact: boolean;
  /** Spark appends a row between the two pipec runs. */
  sparkWrites: boolean;
}

export const CASES: TableCase[] = [
  { sink: 't_day', catalog: 'lake', table: 'db.t_day', partitionBy: 'day(ts), city', formatVersion: 2, kind: 'append', compact: true, sparkWrites: false },
  { sink: 't_month', catalog: 'lake', table: 'db.t_month', partitionBy: 'month(ts), flag', formatVersion: 3, kind: 'append', compact: true, sparkWrites: false },
  { sink: 't_hour', catalog: 'lakesql', table: 'db.t_hour', partitionBy: 'hour(ts)', formatVersion: 2, kind: 'append', compact: false, sparkWrites: false },
  { sink: 't_bucket', catalog: 'lakesql', table: 'db.t_bucket', partitionBy: 'bucket(4, id), truncate(2, city)', formatVersion: 3, kind: 'append', compact: true, sparkWrites: false },
  { sink: 't_trunc', catalog: 'lake', table: 'db.t_trunc', partitionBy: 'truncate(100000, amount)', formatVersion: 2, kind: 'append', compact: false, sparkWrites: false },
  { sink: 't_bytes', catalog: 'lake', table: 'db.t_bytes', partitionBy: 'payload', formatVersion: 3, kind: 'append', compact: false, sparkWrites: false },
  { sink: 't_spark', catalog: 'lake', table: 'db.t_spark', partitionBy: 'bucket(2, id)', formatVersion: 2, kind: 'append', compact: false, sparkWrites: true },
  { sink: 't_cow', catalog: 'lake', table: 'db.t_cow', partitionBy: 'city', formatVersion: 2, kind: 'cow', compact: true, sparkWrites: false },
  { sink: 't_mor2', catalog: 'lakesql', table: 'db.t_mor2', partitionBy: 'city', formatVersion: 2, kind: 'mor', compact: true, sparkWrites: false },
  { sink: 't_mor3', catalog: 'lake', table: 'db.t_mor3', partitionBy: 'bucket(2, city)', formatVersion: 3, kind: 'mor', compact: true, sparkWrites: false },
];

/** The pipeline spec of one pipec run: all sinks, reading `input`; compaction policies too. */
export function spec(pipeline: string, input: string, cases: readonly TableCase[] = CASES): string {
  const sinks = cases.map((c) => {
    const from = c.kind === 'append' ? 'ev' : 'per_city';
    const opts = [
      "connector = 'iceberg'",
      `catalog = '${c.catalog}'`,
      `table = '${c.table}'`,
      `format_version = '${c.formatVersion}'`,
      "commit_interval = '100 ms'",
      ...(c.partitionBy ? [`partition_by = '${c.partitionBy}'`] : []),
      ...(c.kind === 'append' ? [] : [`write_mode = '${c.kind === 'cow' ? 'copy-on-write' : 'merge-on-read'}'`]),
    ];
    return `CREATE SINK ${c.sink} FROM ${from} WITH (${opts.join(', ')});`;
  });
  const policies = cases.filter((c) => c.compact).map(
    (c) => `CREATE COMPACTION POLICY p_${c.sink} ON ${c.sink} (
  REWRITE DATA FILES WHERE file_size < '32 MB' TARGET '128 MB' MIN INPUT FILES 2,
  REWRITE DELETE FILES WHERE delete_ratio > 0
);`,
  );
  return `PIPELINE ${pipeline} WITH (checkpoint_interval = '100 ms');
CREATE SOURCE ev (
  id INT NOT NULL, city STRING, flag BOOLEAN, payload BYTES, amount DECIMAL(12, 2), ts TIMESTAMP(3), n BIGINT
) WITH (connector = 'file', path = '${input}', format = 'ndjson');
CREATE VIEW per_city WITH (state_ttl = '1 h') AS
SELECT city, COUNT(*) AS cnt, SUM(amount) AS total FROM ev GROUP BY city EMIT CHANGES;
CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '\${WH}');
CREATE CATALOG lakesql WITH (type = 'sql', uri = '\${SQL_URI}', warehouse = '\${WH_SQL}');
${sinks.join('\n')}
${policies.join('\n')}
`;
}

// ---------------------------------------------------------------- expected, canonical text

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** 'YYYY-MM-DD HH:MM:SS.ffffff' (UTC), as engines.py prints timestamps. */
export function tsText(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}000`;
}

export type Canon = Record<string, string | null>;

export function canonAppend(r: InputRow): Canon {
  return {
    id: String(r.id),
    city: r.city,
    flag: r.flag === null ? null : String(r.flag),
    payload: r.payload === null ? null : Buffer.from(r.payload, 'base64').toString('hex').toUpperCase(),
    amount: r.amount,
    ts: r.ts === null ? null : tsText(r.ts),
    n: r.n === null ? null : String(r.n),
  };
}

const cents = (s: string): bigint => {
  const neg = s.startsWith('-');
  const [a, b = ''] = s.replace('-', '').split('.');
  const v = BigInt(a!) * 100n + BigInt((b + '00').slice(0, 2));
  return neg ? -v : v;
};
const centsText = (v: bigint): string => {
  const neg = v < 0n;
  const a = neg ? -v : v;
  return `${neg ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
};

/** The per-city aggregate of `rows` (SUM of no non-null amount is NULL). */
export function aggregate(rows: InputRow[]): Canon[] {
  const by = new Map<string | null, { cnt: number; total: bigint | null }>();
  for (const r of rows) {
    const g = by.get(r.city) ?? { cnt: 0, total: null };
    g.cnt++;
    if (r.amount !== null) g.total = (g.total ?? 0n) + cents(r.amount);
    by.set(r.city, g);
  }
  return [...by.entries()].map(([city, g]) => ({ city, cnt: String(g.cnt), total: g.total === null ? null : centsText(g.total) }));
}

/** An upsert table after runs over `batches` (each run's aggregate replaces its keys). */
export function upserted(batches: InputRow[][]): Canon[] {
  const m = new Map<string | null, Canon>();
  for (const b of batches) for (const row of aggregate(b)) m.set(row.city, row);
  return [...m.values()];
}

export const sortCanon = (rows: Canon[]): Canon[] => [...rows].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

// ---------------------------------------------------------------- filters

export interface Filter {
  name: string;
  spark: string;
  duckdb: string;
  /** pyiceberg's row_filter text; null where its expression language has no such predicate. */
  pyiceberg: string | null;
  /** SQL semantics: a NULL comparison is not true. */
  keep: (r: InputRow) => boolean;
}

const both = (name: string, sql: string, keep: (r: InputRow) => boolean, pyiceberg: string | null = sql): Filter => ({ name, spark: sql, duckdb: sql, pyiceberg, keep });
const amt = (r: InputRow): bigint | null => (r.amount === null ? null : cents(r.amount));
const hex = (r: InputRow): string | null => (r.payload === null ? null : Buffer.from(r.payload, 'base64').toString('hex').toUpperCase());

/** ~30 predicates over partition columns (partition pruning) and others (metric pruning). */
export const FILTERS: Filter[] = [
  both('id_eq', 'id = 7', (r) => r.id === 7),
  both('id_lt', 'id < 10', (r) => r.id < 10),
  both('id_ge', 'id >= 50', (r) => r.id >= 50),
  both('id_between', 'id BETWEEN 20 AND 30', (r) => r.id >= 20 && r.id <= 30, 'id >= 20 AND id <= 30'),
  both('id_even', 'id % 2 = 0', (r) => r.id % 2 === 0, null),
  both('city_zurich', "city = 'Zürich'", (r) => r.city === 'Zürich'),
  both('city_space', "city = 'New York'", (r) => r.city === 'New York'),
  both('city_escapes', "city = 'a b/c=d%+'", (r) => r.city === 'a b/c=d%+'),
  both('city_null', 'city IS NULL', (r) => r.city === null),
  both('city_not_null', 'city IS NOT NULL', (r) => r.city !== null),
  both('city_in', "city IN ('Zürich', 'São Paulo')", (r) => r.city === 'Zürich' || r.city === 'São Paulo'),
  both('city_like', "city LIKE 'S%'", (r) => r.city !== null && r.city.startsWith('S')),
  both('city_gt', "city > 'M'", (r) => r.city !== null && r.city > 'M'),
  both('city_not', "NOT (city = 'Zürich')", (r) => r.city !== null && r.city !== 'Zürich'),
  both('flag_true', 'flag = true', (r) => r.flag === true),
  both('flag_false', 'flag = false', (r) => r.flag === false),
  both('flag_null', 'flag IS NULL', (r) => r.flag === null),
  both('amount_pos', 'amount > 0', (r) => (amt(r) ?? 0n) > 0n),
  both('amount_min', 'amount <= -1000.00', (r) => amt(r) !== null && amt(r)! <= -100000n),
  both('amount_range', 'amount BETWEEN -5 AND 5', (r) => amt(r) !== null && amt(r)! >= -500n && amt(r)! <= 500n, 'amount >= -5 AND amount <= 5'),
  both('amount_null', 'amount IS NULL', (r) => r.amount === null),
  both('ts_ge', "ts >= '2024-01-02 00:00:00'", (r) => r.ts !== null && r.ts >= Date.UTC(2024, 0, 2), "ts >= '2024-01-02T00:00:00'"),
  both('ts_lt', "ts < '2024-01-01 06:00:00'", (r) => r.ts !== null && r.ts < Date.UTC(2024, 0, 1, 6), "ts < '2024-01-01T06:00:00'"),
  both('ts_null', 'ts IS NULL', (r) => r.ts === null),
  both('n_big', 'n > 5000000000000', (r) => r.n !== null && r.n > 5_000_000_000_000),
  both('n_null', 'n IS NULL', (r) => r.n === null),
  { name: 'payload_eq', spark: "payload = X'000001FF'", duckdb: "payload = '\\x00\\x00\\x01\\xFF'::BLOB", pyiceberg: null, keep: (r) => hex(r) === '000001FF' },
  both('payload_hex', "hex(payload) = '000005FF'", (r) => hex(r) === '000005FF', null),
  both('payload_null', 'payload IS NULL', (r) => r.payload === null),
  both('and', "city = 'Zürich' AND flag = true", (r) => r.city === 'Zürich' && r.flag === true),
  both('or', "city = 'New York' OR id = 3", (r) => r.city === 'New York' || r.id === 3),
];
