// Shared helpers of the ClickHouse integration tests: the Bid fixture, INSERT statements for the
// insertable source tables, and row normalization (ClickHouse prints Decimal without trailing zeros).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../support/venv.ts';

export type Row = Record<string, unknown>;

export interface ExpectedCase {
  name: string;
  origin: 'documented' | 'hand';
  window?: { kind: 'tumble'; sizeMs: number; offsetMs: number } | { kind: 'hop'; slideMs: number; sizeMs: number } | { kind: 'cumulate'; stepMs: number; sizeMs: number };
  rows: Row[];
}

export const bids: Row[] = readFileSync(path.join(repoRoot, 'test/fixtures/windows/bids.ndjson'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as Row);

export const expectedCases: ExpectedCase[] = (
  JSON.parse(readFileSync(path.join(repoRoot, 'test/fixtures/windows/bids-expected.json'), 'utf8')) as { cases: ExpectedCase[] }
).cases;

export function expectedCase(name: string): ExpectedCase {
  const c = expectedCases.find((x) => x.name === name);
  if (!c) throw new Error(`no expected case ${name}`);
  return c;
}

const sqlValue = (v: unknown): string => (v === null || v === undefined ? 'NULL' : typeof v === 'number' ? String(v) : `'${String(v).replace(/\\/g, '\\\\').replace(/'/g, "''")}'`);

/** `INSERT INTO table (cols) VALUES (...)` for rows keyed by column name. */
export function insert(table: string, columns: string[], rows: Row[]): string {
  const q = (n: string): string => '`' + n.replace(/\\/g, '\\\\').replace(/`/g, '``') + '`';
  return `INSERT INTO ${table} (${columns.map(q).join(', ')}) VALUES ${rows.map((r) => `(${columns.map((c) => sqlValue(r[c])).join(', ')})`).join(', ')};`;
}

/** A decimal string without trailing fractional zeros ('11.00' → '11', '3.50' → '3.5'). */
function canonicalNumber(s: string): string {
  if (!/^-?\d+(\.\d+)?$/.test(s)) return s;
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/** Values as canonical strings, so '11.00' (expected) equals 11 (ClickHouse JSON). */
export function normalize(rows: Row[]): Record<string, string | null>[] {
  return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v === null ? null : canonicalNumber(String(v))])));
}
