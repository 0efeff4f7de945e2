// Runs SQL in a fresh in-memory DuckDB (via @duckdb/node-api) for tests — chiefly to read Parquet files that the
// runtime or pyiceberg wrote: `queryDuckDb("SELECT * FROM read_parquet('/tmp/x/*.parquet') ORDER BY id")`.
import { DuckDBInstance } from '@duckdb/node-api';

export type DuckDbRow = Record<string, unknown>;

export interface QueryDuckDbOptions {
  /**
   * 'js' (default): DuckDB's JS values, except that BIGINT/HUGEINT-family integers become numbers when they fit in
   * ±(2^53−1) and decimal strings otherwise; DECIMAL → number, TIMESTAMP/DATE → Date.
   * 'json': DuckDB's JSON-safe form — all 64/128-bit integers and decimals as exact strings, timestamps as text.
   */
  values?: 'js' | 'json';
}

function normalise(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (Array.isArray(value)) {
    return value.map(normalise);
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]));
  }
  return value;
}

/** Runs `sql` (one or more `;`-separated statements) and returns the rows of the last statement. */
export async function queryDuckDb(sql: string, options: QueryDuckDbOptions = {}): Promise<DuckDbRow[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(sql);
    if (options.values === 'json') {
      return reader.getRowObjectsJson() as DuckDbRow[];
    }
    return reader.getRowObjectsJS().map((row) => normalise(row) as DuckDbRow);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
